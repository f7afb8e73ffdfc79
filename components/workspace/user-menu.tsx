"use client";
import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import type { MeResponse } from "@/components/api/types";
import { api } from "@/components/api/http-client";
import { useT } from "@/components/i18n/locale-store";
import { Badge } from "@/components/ui/badge";
import { focusRing } from "@/components/ui/button";
import { ChevronIcon } from "@/components/ui/icons";
import { cx } from "@/components/ui/cx";
import { ApiTokensDialog } from "./api-tokens-dialog";

export function UserMenu({ me }: { me: MeResponse }) {
  const t = useT();
  const router = useRouter();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [tokensOpen, setTokensOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const name = me.user.name || me.user.email;

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  const signOut = async () => {
    try {
      await api("/v1/auth/sign-out", { method: "POST", body: {} });
    } finally {
      qc.clear();
      router.replace("/sign-in");
    }
  };

  return (
    <div ref={root} className="relative">
      <button
        type="button"
        data-testid="user-menu"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
        className={cx("flex items-center gap-2 rounded-lg px-2 py-1 text-sm text-slate-700 hover:bg-slate-100", focusRing)}
      >
        <span aria-hidden="true" className="flex h-7 w-7 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold uppercase text-indigo-700">
          {name.slice(0, 1)}
        </span>
        <span className="sr-only">{t("user.menu")}: </span>
        <span className="hidden max-w-[10rem] truncate sm:inline">{name}</span>
        <span className="sr-only sm:hidden">{name}</span>
        <ChevronIcon />
      </button>
      {open ? (
        <div role="menu" aria-label={t("user.menu")} className="absolute right-0 top-full z-30 mt-2 w-64 rounded-xl border border-slate-200 bg-white p-2 shadow-lg">
          <div className="px-2 py-1.5">
            <p className="truncate text-sm font-medium text-slate-900">{me.user.name || "—"}</p>
            <p className="truncate text-xs text-slate-500">{me.user.email}</p>
          </div>
          <button
            type="button"
            role="menuitem"
            data-testid="open-api-tokens"
            onClick={() => {
              setOpen(false);
              setTokensOpen(true);
            }}
            className={cx("mt-1 w-full rounded-lg px-2 py-2 text-left text-sm text-slate-700 hover:bg-slate-100", focusRing)}
          >
            {t("tokens.menu")}
          </button>
          {me.auth_mode === "local" ? (
            <div className="px-2 py-1.5 text-xs text-slate-500">
              <Badge tone="brand">{t("user.localMode")}</Badge>
              <p className="mt-1.5">{t("user.localModeHint")}</p>
            </div>
          ) : (
            <button type="button" role="menuitem" data-testid="sign-out" onClick={signOut} className={cx("mt-1 w-full rounded-lg px-2 py-2 text-left text-sm text-slate-700 hover:bg-slate-100", focusRing)}>
              {t("user.signOut")}
            </button>
          )}
        </div>
      ) : null}
      <ApiTokensDialog open={tokensOpen} onClose={() => setTokensOpen(false)} />
    </div>
  );
}
