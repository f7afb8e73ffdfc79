"use client";
// Modal dialog on the native <dialog> element: showModal() gives focus trapping, Escape to
// close and an inert background for free, which a hand-rolled overlay tends to get wrong.
import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";
import { CloseIcon } from "./icons";
import { useT } from "@/components/i18n/locale-store";

export interface DialogProps {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  footer?: ReactNode;
  testId?: string;
}

export function Dialog({ open, onClose, title, children, footer, testId }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const t = useT();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-2xl bg-white p-0 text-slate-900 shadow-2xl ring-1 ring-slate-200 backdrop:bg-slate-900/40"
    >
      {open ? (
        <div className="flex flex-col gap-4 p-6">
          <div className="flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-base font-semibold text-slate-900">
              {title}
            </h2>
            <Button variant="ghost" size="icon" aria-label={t("common.close")} onClick={onClose}>
              <CloseIcon />
            </Button>
          </div>
          <div className="text-sm text-slate-600">{children}</div>
          {footer ? <div className="flex justify-end gap-2">{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  );
}
