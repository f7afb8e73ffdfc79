"use client";
// A link written by the model (or a document it quotes) is untrusted: a prompt-injected answer
// can plant a secret in its query string and invite a click. The destination host is shown
// beside the link text, and opening it asks first, with the full address (query included) in
// view. The app itself never builds a URL from retrieved text.
import { useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { useT } from "@/components/i18n/locale-store";

export function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const url = new URL(href);
  const hasQuery = url.search.length > 1 || url.hash.length > 1;
  const dialog = (
    <Dialog
      open={open}
      onClose={() => setOpen(false)}
      title={t("link.title")}
      testId="external-link-dialog"
      footer={
        <>
          <Button onClick={() => setOpen(false)} data-testid="external-link-cancel">
            {t("common.cancel")}
          </Button>
          <Button
            variant="primary"
            data-testid="external-link-open"
            onClick={() => {
              setOpen(false);
              window.open(href, "_blank", "noopener,noreferrer");
            }}
          >
            {t("link.open")}
          </Button>
        </>
      }
    >
      <p>{t("link.body")}</p>
      <p data-testid="external-link-dialog-host" className="mt-2 text-base font-semibold break-all">
        {url.host}
      </p>
      <p data-testid="external-link-dialog-url" className="mt-1 rounded bg-slate-50 px-2 py-1 font-mono text-xs break-all text-slate-600">
        {href}
      </p>
      {hasQuery ? <p className="mt-2 text-amber-800">{t("link.query")}</p> : null}
    </Dialog>
  );
  return (
    <>
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        data-testid="external-link"
        onClick={(e) => {
          e.preventDefault();
          setOpen(true);
        }}
        className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900"
      >
        {children}
      </a>
      <span data-testid="external-link-host" className="ml-1 rounded bg-slate-100 px-1 text-[0.7rem] text-slate-700">
        {url.host}
      </span>
      {/* In a portal, mounted only while open: a <dialog> may not sit inside the answer's <p>. */}
      {open ? createPortal(dialog, document.body) : null}
    </>
  );
}
