"use client";
// The live knowledge entry: providers and bindings from the server (React Query), binding and
// unbinding over the conversation's API; before the first question the choices wait in the
// pending store and go with it.
import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { bindExternalRefs, queryKeys, unbindExternalRef, useExternalRefs, useExternalSources } from "@/components/api/queries";
import { isApiError } from "@/components/api/http-client";
import type { ExternalRefBinding } from "@/components/api/types";
import { useErrorCopy } from "@/components/i18n/locale-store";
import { bindingKey, type BindRequest } from "@/components/sources/source-view-registry";
import { registerExternalSources } from "./external-source-registrations";
import { KnowledgePanelView } from "./knowledge-panel-view";
import { usePendingRefs, usePendingRefsOf } from "./pending-refs-store";

/** Registers the configured providers' views and openers as soon as the workspace loads them. */
export function useExternalSourceRegistrations(): void {
  const providers = useExternalSources();
  useEffect(() => {
    if (providers.data) registerExternalSources(providers.data);
  }, [providers.data]);
}

export function KnowledgePanel({ kbId, kbName, fileCount, conversationId }: { kbId: string; kbName: string; fileCount: number; conversationId: string | null }) {
  const qc = useQueryClient();
  const errorCopy = useErrorCopy();
  const providers = useExternalSources();
  const refs = useExternalRefs(kbId, conversationId);
  const pending = usePendingRefsOf(kbId);
  const [actionError, setActionError] = useState<string | null>(null);
  const refresh = () => conversationId && qc.invalidateQueries({ queryKey: queryKeys.externalRefs(kbId, conversationId) });

  const run = async (fn: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await fn();
    } catch (e) {
      setActionError(isApiError(e) ? errorCopy(e.code, e.message).text : String((e as Error)?.message ?? e));
    } finally {
      void refresh();
    }
  };

  const onBind = (ref: BindRequest) => {
    if (!conversationId) {
      usePendingRefs.getState().add(kbId, ref);
      return;
    }
    void run(() => bindExternalRefs(kbId, conversationId, [ref]));
  };
  const onUnbind = (ref: ExternalRefBinding | BindRequest) => {
    if (!conversationId) {
      usePendingRefs.getState().remove(kbId, bindingKey({ ...ref, id: ref.id ?? null }));
      return;
    }
    void run(() => unbindExternalRef(kbId, conversationId, ref as ExternalRefBinding));
  };

  return (
    <KnowledgePanelView
      kbName={kbName}
      fileCount={fileCount}
      bindings={conversationId ? (refs.data ?? []) : pending}
      bindingsState={!conversationId ? "ready" : refs.isError ? "error" : refs.isPending ? "loading" : "ready"}
      pending={!conversationId}
      providers={providers.data}
      providersState={providers.isError ? "error" : providers.isPending ? "loading" : "ready"}
      onBind={onBind}
      onUnbind={onUnbind}
      actionError={actionError}
    />
  );
}
