"use client";
import { useState } from "react";
import { Button } from "./button";
import { Dialog } from "./dialog";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { isApiError } from "@/components/api/http-client";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, body, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      title={title}
      testId="confirm-dialog"
      footer={
        <>
          <Button onClick={close}>{t("common.cancel")}</Button>
          <Button
            variant="danger"
            disabled={pending}
            onClick={async () => {
              setPending(true);
              setError(null);
              try {
                await onConfirm();
                close();
              } catch (e) {
                setError(isApiError(e) ? errorCopy(e.code, e.message).text : String(e));
              } finally {
                setPending(false);
              }
            }}
          >
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>{body}</p>
      {error ? (
        <p role="alert" className="mt-3 rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}
