"use client";
import { useId, useState } from "react";
import type { KnowledgeSummary } from "@/components/api/types";
import { useAddMember, useMembers, useRemoveMember, useRevokeInvitation } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TrashIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { inputClass } from "@/components/ui/text-field";
import { roleKey } from "./format";

/**
 * Owners add people by e-mail as editor or viewer; the server enforces the roles. Anyone not yet
 * a member is invited (the server does not say whether the e-mail has an account), and shows
 * under "pending invitations" until they sign in.
 */
export function MembersDialog({ kb, open, onClose }: { kb: KnowledgeSummary; open: boolean; onClose: () => void }) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const members = useMembers(kb.id, open);
  const add = useAddMember(kb.id);
  const remove = useRemoveMember(kb.id);
  const revoke = useRevokeInvitation(kb.id);
  const [notice, setNotice] = useState<string | null>(null);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"editor" | "viewer">("viewer");
  const [error, setError] = useState<string | null>(null);
  const emailId = useId();
  const roleId = useId();
  const fail = (e: unknown) => setError(isApiError(e) ? errorCopy(e.code, e.message).text : String(e));
  return (
    <Dialog open={open} onClose={onClose} title={t("kb.membersTitle", { name: kb.name })} testId="members-dialog">
      <form
        className="flex flex-col gap-2 sm:flex-row sm:items-end"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          setNotice(null);
          try {
            const r = await add.mutateAsync({ email: email.trim(), role });
            setNotice(t(r.status === "member" ? "kb.memberUpdated" : "kb.memberInvited", { email: r.email }));
            setEmail("");
          } catch (err) {
            fail(err);
          }
        }}
      >
        <div className="flex flex-1 flex-col gap-1">
          <label htmlFor={emailId} className="text-xs font-medium text-slate-700">
            {t("kb.memberEmail")}
          </label>
          <input id={emailId} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} className={inputClass} />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={roleId} className="text-xs font-medium text-slate-700">
            {t("kb.memberRole")}
          </label>
          <select id={roleId} value={role} onChange={(e) => setRole(e.target.value as "editor" | "viewer")} className={inputClass}>
            <option value="viewer">{t("kb.role.viewer")}</option>
            <option value="editor">{t("kb.role.editor")}</option>
          </select>
        </div>
        <Button type="submit" variant="primary" disabled={add.isPending || !email.trim()}>
          {t("kb.memberAdd")}
        </Button>
      </form>
      <p className="mt-2 text-xs text-slate-600">{t("kb.memberHint")}</p>
      {notice ? (
        <p role="status" data-testid="member-notice" className="mt-3 rounded-lg bg-emerald-50 px-3 py-2 text-emerald-900">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-3 rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
          {error}
        </p>
      ) : null}
      <div className="mt-4">
        {members.isPending ? (
          <p className="flex items-center gap-2 text-slate-500">
            <Spinner /> {t("common.loading")}
          </p>
        ) : members.isError ? (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
            {t("common.loadFailed", { message: isApiError(members.error) ? members.error.message : "" })}
          </p>
        ) : (
          <>
          {members.data.items.length === 0 ? (
          <p className="text-slate-500">{t("kb.membersEmpty")}</p>
        ) : (
          <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200">
            {members.data.items.map((m) => (
              <li key={m.user_id} className="flex items-center gap-2 px-3 py-2">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm text-slate-800">{m.name || m.email}</p>
                  <p className="truncate text-xs text-slate-500">{m.email}</p>
                </div>
                <Badge tone={m.role === "owner" ? "brand" : "neutral"}>{t(roleKey(m.role))}</Badge>
                {m.role !== "owner" ? (
                  <Button variant="ghost" size="icon" aria-label={t("kb.memberRemove", { email: m.email })} onClick={() => remove.mutateAsync(m.user_id).catch(fail)}>
                    <TrashIcon />
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
          {members.data.invitations.length > 0 ? (
            <section className="mt-4" aria-labelledby={`${emailId}-invitations`}>
              <h3 id={`${emailId}-invitations`} className="mb-2 text-xs font-medium text-slate-700">
                {t("kb.invitationsTitle")}
              </h3>
              <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200" data-testid="invitation-list">
                {members.data.invitations.map((i) => (
                  <li key={i.id} className="flex items-center gap-2 px-3 py-2">
                    <div className="min-w-0 flex-1">
                      <p className="truncate text-sm text-slate-800">{i.email}</p>
                      <p className="truncate text-xs text-slate-600">
                        {t("kb.invitationExpires", { date: new Date(i.expires_at).toLocaleDateString() })}
                      </p>
                    </div>
                    <Badge tone="neutral">{t("kb.invitationPending")}</Badge>
                    <Badge tone="neutral">{t(roleKey(i.role))}</Badge>
                    <Button variant="ghost" size="icon" aria-label={t("kb.invitationRevoke", { email: i.email })} onClick={() => revoke.mutateAsync(i.id).catch(fail)}>
                      <TrashIcon />
                    </Button>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          </>
        )}
      </div>
    </Dialog>
  );
}
