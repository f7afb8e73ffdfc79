"use client";
import { useState } from "react";
import { isApiError } from "@/components/api/http-client";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/text-field";

export interface KbNameDialogProps {
  open: boolean;
  title: string;
  initialName?: string;
  withDescription?: boolean;
  submitLabel: string;
  onSubmit: (v: { name: string; description?: string }) => Promise<unknown>;
  onClose: () => void;
}

/** Create / rename form. Mounted fresh each time it opens, so its fields start from props. */
export function KbNameDialog(p: KbNameDialogProps) {
  return (
    <Dialog open={p.open} onClose={p.onClose} title={p.title} testId="kb-dialog">
      {p.open ? <KbNameForm {...p} /> : null}
    </Dialog>
  );
}

function KbNameForm({ initialName = "", withDescription, submitLabel, onSubmit, onClose }: KbNameDialogProps) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const [name, setName] = useState(initialName);
  const [description, setDescription] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!name.trim()) return;
        setPending(true);
        setError(null);
        try {
          await onSubmit({ name: name.trim(), description: withDescription && description.trim() ? description.trim() : undefined });
          onClose();
        } catch (err) {
          setError(isApiError(err) ? errorCopy(err.code, err.message).text : String(err));
        } finally {
          setPending(false);
        }
      }}
    >
      <TextField label={t("kb.name")} name="name" data-testid="kb-name-input" required maxLength={100} autoFocus value={name} onChange={(e) => setName(e.target.value)} />
      {withDescription ? <TextField label={t("kb.description")} name="description" maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} /> : null}
      {error ? (
        <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
          {error}
        </p>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button onClick={onClose}>{t("common.cancel")}</Button>
        <Button type="submit" variant="primary" data-testid="kb-dialog-submit" disabled={pending || !name.trim()}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
