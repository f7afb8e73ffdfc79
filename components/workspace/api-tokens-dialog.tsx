"use client";
import { useId, useState } from "react";
import { isApiError } from "@/components/api/http-client";
import { useApiTokens, useCreateApiToken, useKnowledges, useRevokeApiToken } from "@/components/api/queries";
import { useErrorCopy, useT } from "@/components/i18n/locale-store";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { TrashIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { inputClass } from "@/components/ui/text-field";

/**
 * API tokens for agents and MCP clients: name, scope (read-only tools vs full) and an optional
 * restriction to chosen KBs. The secret is shown once, right after creation; the server enforces
 * what a token may do.
 */
export function ApiTokensDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const t = useT();
  const errorCopy = useErrorCopy();
  const tokens = useApiTokens(open);
  const kbs = useKnowledges(open);
  const create = useCreateApiToken();
  const revoke = useRevokeApiToken();
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"read" | "full">("read");
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const nameId = useId();
  const scopeId = useId();
  const fail = (e: unknown) => setError(isApiError(e) ? errorCopy(e.code, e.message).text : String(e));
  const kbName = (id: string) => kbs.data?.find((k) => k.id === id)?.name ?? id;
  const mcpUrl = typeof window === "undefined" ? "/v1/mcp" : `${window.location.origin}/v1/mcp`;

  return (
    <Dialog open={open} onClose={onClose} title={t("tokens.title")} testId="api-tokens-dialog">
      <p className="mb-3 break-words text-xs text-slate-600">{t("tokens.intro", { url: mcpUrl })}</p>
      <form
        className="flex flex-col gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            const made = await create.mutateAsync({ name: name.trim(), scope, knowledge_ids: chosen });
            setSecret(made.token);
            setName("");
            setChosen([]);
          } catch (err) {
            fail(err);
          }
        }}
      >
        <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="flex flex-1 flex-col gap-1">
            <label htmlFor={nameId} className="text-xs font-medium text-slate-700">
              {t("tokens.name")}
            </label>
            <input id={nameId} data-testid="api-token-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} className={inputClass} />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={scopeId} className="text-xs font-medium text-slate-700">
              {t("tokens.scope")}
            </label>
            <select id={scopeId} data-testid="api-token-scope" value={scope} onChange={(e) => setScope(e.target.value as "read" | "full")} className={inputClass}>
              <option value="read">{t("tokens.scope.read")}</option>
              <option value="full">{t("tokens.scope.full")}</option>
            </select>
          </div>
        </div>
        {kbs.data?.length ? (
          <fieldset className="rounded-lg border border-slate-200 px-3 py-2">
            <legend className="px-1 text-xs font-medium text-slate-700">{t("tokens.kbs")}</legend>
            <div className="flex max-h-32 flex-wrap gap-x-4 gap-y-1 overflow-y-auto">
              {kbs.data.map((k) => (
                <label key={k.id} className="flex items-center gap-1.5 text-sm text-slate-700">
                  <input
                    type="checkbox"
                    checked={chosen.includes(k.id)}
                    onChange={(e) => setChosen((c) => (e.target.checked ? [...c, k.id] : c.filter((x) => x !== k.id)))}
                  />
                  <span className="max-w-[12rem] truncate">{k.name}</span>
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
        <div>
          <Button type="submit" variant="primary" disabled={create.isPending || !name.trim()} data-testid="api-token-create">
            {t("tokens.create")}
          </Button>
        </div>
      </form>
      {secret ? (
        <div className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
          <p>{t("tokens.secret")}</p>
          <code data-testid="api-token-secret" className="mt-1 block select-all break-all font-mono text-xs">
            {secret}
          </code>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="mt-3 rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
          {error}
        </p>
      ) : null}
      <div className="mt-4">
        {tokens.isPending ? (
          <p className="flex items-center gap-2 text-slate-500">
            <Spinner /> {t("common.loading")}
          </p>
        ) : tokens.isError ? (
          <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800">
            {t("common.loadFailed", { message: isApiError(tokens.error) ? tokens.error.message : "" })}
          </p>
        ) : tokens.data.length === 0 ? (
          <p className="text-slate-500">{t("tokens.empty")}</p>
        ) : (
          <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200" data-testid="api-token-list">
            {tokens.data.map((tk) => (
              <li key={tk.id} className="flex items-center gap-2 px-3 py-2" data-testid="api-token-row">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm text-slate-800">{tk.name}</p>
                  <p className="truncate text-xs text-slate-500">{tk.knowledge_ids.length ? tk.knowledge_ids.map(kbName).join("、") : t("tokens.allKbs")}</p>
                </div>
                <Badge tone={tk.scope === "full" ? "brand" : "neutral"}>{t(tk.scope === "full" ? "tokens.scope.full" : "tokens.scope.read")}</Badge>
                <Button variant="ghost" size="icon" aria-label={t("tokens.revoke", { name: tk.name })} onClick={() => revoke.mutateAsync(tk.id).catch(fail)}>
                  <TrashIcon />
                </Button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}
