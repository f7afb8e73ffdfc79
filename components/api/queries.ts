"use client";
// Server state lives in React Query; query keys are centralised here so invalidation after
// uploads, parse jobs and chats reaches every view that shows the same data.
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { api, kbPath } from "./http-client";
import type {
  ApiTokenSummary,
  AssistantBootstrap,
  ConversationSummary,
  CursorPage,
  DocumentContent,
  FeedbackItem,
  MessageFeedback,
  ExternalProviderStatus,
  ExternalRefBinding,
  ListingPage,
  KnowledgeFile,
  KnowledgeInvitation,
  KnowledgeMember,
  KnowledgeSummary,
  KnowledgeTreeItem,
  MeResponse,
  Page,
  RetrievalTestResult,
  StoredMessage,
  EvalOverview,
  EvalQuestion,
  EvalResultRow,
  EvalRun,
  EvalSetDetail,
} from "./types";

export const queryKeys = {
  me: ["me"] as const,
  knowledges: ["knowledges"] as const,
  tree: ["knowledges", "tree"] as const,
  bootstrap: (kbId: string) => ["bootstrap", kbId] as const,
  conversations: (kbId: string) => ["conversations", kbId] as const,
  conversationSearch: (kbId: string, q: string) => ["conversations", kbId, q] as const,
  feedback: (kbId: string, rating: string) => ["feedback", kbId, rating] as const,
  messages: (kbId: string, conversationId: string) => ["messages", kbId, conversationId] as const,
  content: (kbId: string, fileId: string) => ["content", kbId, fileId] as const,
  members: (kbId: string) => ["members", kbId] as const,
  apiTokens: ["api-tokens"] as const,
  externalSources: ["external-sources"] as const,
  externalRefs: (kbId: string, conversationId: string) => ["external-refs", kbId, conversationId] as const,
  providerDocuments: (provider: string, sourceId: string | null, parentId: string | null) => ["provider-documents", provider, sourceId, parentId] as const,
};

const INDEXING_STAGES = new Set(["queued", "parsing", "chunking", "embedding", "indexing"]);
export const isIndexingStatus = (s: string) => INDEXING_STAGES.has(s);

export function useMe() {
  return useQuery({ queryKey: queryKeys.me, queryFn: () => api<MeResponse>("/v1/auth/me"), retry: false, staleTime: 60_000 });
}

export function useKnowledges(enabled = true) {
  return useQuery({
    queryKey: queryKeys.knowledges,
    queryFn: () => api<Page<KnowledgeSummary>>("/v1/knowledges?page=1&page_size=1000"),
    select: (d) => d.items,
    enabled,
  });
}

/**
 * Files of one KB, taken from the tree (one request serves the list and every status badge).
 * `shouldPoll` is a fallback for processing files that have no live parse-job stream.
 */
export function useKnowledgeFiles(kbId: string | null, shouldPoll?: (files: KnowledgeFile[]) => boolean) {
  const pick = (d: { items: KnowledgeTreeItem[] } | undefined): KnowledgeFile[] | null => d?.items.find((k) => k.id === kbId)?.files ?? null;
  return useQuery({
    queryKey: queryKeys.tree,
    queryFn: () => api<{ items: KnowledgeTreeItem[] }>("/v1/knowledges/tree"),
    enabled: !!kbId,
    select: pick,
    refetchInterval: (q) => {
      const files = pick(q.state.data);
      return files && shouldPoll?.(files) ? 4_000 : false;
    },
  });
}

export function useBootstrap(kbId: string | null) {
  return useQuery({
    queryKey: queryKeys.bootstrap(kbId ?? ""),
    queryFn: () => api<AssistantBootstrap>(kbPath(kbId!, "/assistant/bootstrap")),
    enabled: !!kbId,
    // While files are indexing the status changes on its own (e.g. the seeded sample KB);
    // parse-job events invalidate this query too, the interval is only a safety net.
    refetchInterval: (q) => (q.state.data && q.state.data.assistant_status === "indexing" ? 5_000 : false),
  });
}

export const CONVERSATION_PAGE_SIZE = 20;

/**
 * The conversation list, newest first, one keyset page at a time ("more" loads the next); `q`
 * searches titles and message text on the server. Every search shares the conversations key
 * prefix, so invalidating a KB's conversations refreshes the search too.
 */
export function useConversations(kbId: string | null, q = "") {
  const search = q.trim();
  return useInfiniteQuery({
    queryKey: search ? queryKeys.conversationSearch(kbId ?? "", search) : queryKeys.conversations(kbId ?? ""),
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ page_size: String(CONVERSATION_PAGE_SIZE) });
      if (pageParam) params.set("cursor", pageParam);
      if (search) params.set("q", search);
      return api<CursorPage<ConversationSummary>>(kbPath(kbId!, `/assistant/conversations?${params}`));
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    enabled: !!kbId,
    placeholderData: keepPreviousData,
  });
}

export function useRenameConversation(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; title: string }) =>
      api<ConversationSummary>(kbPath(kbId, `/assistant/conversations/${encodeURIComponent(input.id)}`), { method: "PATCH", body: { title: input.title } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.conversations(kbId) }),
  });
}

export function putMessageFeedback(kbId: string, conversationId: string, messageId: string, feedback: MessageFeedback | null) {
  return api<{ message_id: string; rating: string | null; comment: string | null }>(
    kbPath(kbId, `/assistant/conversations/${encodeURIComponent(conversationId)}/messages/${encodeURIComponent(messageId)}/feedback`),
    { method: "PUT", body: { rating: feedback?.rating ?? null, comment: feedback?.comment ?? null } },
  );
}

/** Rated answers of a KB (owners and editors). `rating` "" lists both. */
export function useKnowledgeFeedback(kbId: string, rating: "" | "up" | "down") {
  return useInfiniteQuery({
    queryKey: queryKeys.feedback(kbId, rating),
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: "20" });
      if (pageParam) params.set("cursor", pageParam);
      if (rating) params.set("rating", rating);
      return api<CursorPage<FeedbackItem>>(kbPath(kbId, `/assistant/feedback?${params}`));
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function fetchConversationMessages(kbId: string, conversationId: string) {
  return api<Page<StoredMessage>>(kbPath(kbId, `/assistant/conversations/${encodeURIComponent(conversationId)}/messages?page=1&page_size=200`));
}

export function useDocumentContent(kbId: string | null, fileId: string | null) {
  return useQuery({
    queryKey: queryKeys.content(kbId ?? "", fileId ?? ""),
    queryFn: () => api<DocumentContent>(kbPath(kbId!, `/files/${encodeURIComponent(fileId!)}/content`)),
    enabled: !!kbId && !!fileId,
    staleTime: 60_000,
  });
}

export function useMembers(kbId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.members(kbId ?? ""),
    queryFn: () => api<{ items: KnowledgeMember[]; invitations: KnowledgeInvitation[] }>(kbPath(kbId!, "/members")),
    enabled: !!kbId && enabled,
  });
}

export function useRetrievalTest(kbId: string) {
  return useMutation({
    mutationFn: (input: { query: string; file_ids: string[] | null; top_k: number; min_score: number }) =>
      api<RetrievalTestResult>(kbPath(kbId, "/retrieval-test"), { method: "POST", body: input }),
  });
}

export function invalidateKb(qc: QueryClient, kbId: string | null) {
  void qc.invalidateQueries({ queryKey: queryKeys.knowledges });
  if (kbId) void qc.invalidateQueries({ queryKey: queryKeys.bootstrap(kbId) });
}

export function useCreateKnowledge() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; description?: string }) => api<KnowledgeSummary>("/v1/knowledges", { method: "POST", body: input }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.knowledges }),
  });
}

export function useRenameKnowledge() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { id: string; name: string }) => api<KnowledgeSummary>(kbPath(input.id), { method: "PATCH", body: { name: input.name } }),
    onSuccess: (_d, v) => invalidateKb(qc, v.id),
  });
}

export function useDeleteKnowledge() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(kbPath(id), { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.knowledges }),
  });
}

export function useDeleteFile(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (fileId: string) => api<unknown>(kbPath(kbId, `/files/${encodeURIComponent(fileId)}`), { method: "DELETE" }),
    onSuccess: () => invalidateKb(qc, kbId),
  });
}

export function useReparseFile(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (fileId: string) => api<unknown>(kbPath(kbId, `/files/${encodeURIComponent(fileId)}/reparse`), { method: "POST", body: {} }),
    onSuccess: () => invalidateKb(qc, kbId),
  });
}

export function useDeleteConversation(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (conversationId: string) => api<unknown>(kbPath(kbId, `/assistant/conversations/${encodeURIComponent(conversationId)}`), { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.conversations(kbId) }),
  });
}

export function useAddMember(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; role: "editor" | "viewer" }) =>
      api<{ status: "invited" | "member"; email: string }>(kbPath(kbId, "/members"), { method: "POST", body: input }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.members(kbId) }),
  });
}

export function useRevokeInvitation(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (invitationId: string) => api<unknown>(kbPath(kbId, `/invitations/${encodeURIComponent(invitationId)}`), { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.members(kbId) }),
  });
}

export function useRemoveMember(kbId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => api<unknown>(kbPath(kbId, `/members/${encodeURIComponent(userId)}`), { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.members(kbId) }),
  });
}

// API tokens for agents and MCP clients (issue 17).
export function useApiTokens(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.apiTokens,
    queryFn: () => api<{ items: ApiTokenSummary[] }>("/v1/api-tokens"),
    select: (d) => d.items,
    enabled,
  });
}

export function useCreateApiToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; scope: "full" | "read"; knowledge_ids: string[] }) =>
      api<ApiTokenSummary & { token: string }>("/v1/api-tokens", { method: "POST", body: input }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}

export function useRevokeApiToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/v1/api-tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: queryKeys.apiTokens }),
  });
}

// External knowledge sources (issue 18).
export function useExternalSources() {
  return useQuery({
    queryKey: queryKeys.externalSources,
    queryFn: () => api<{ items: ExternalProviderStatus[] }>("/v1/external-sources"),
    select: (d) => d.items,
    staleTime: 30_000,
  });
}

export function useExternalRefs(kbId: string | null, conversationId: string | null) {
  return useQuery({
    queryKey: queryKeys.externalRefs(kbId ?? "", conversationId ?? ""),
    queryFn: () => api<{ items: ExternalRefBinding[] }>(kbPath(kbId!, `/assistant/conversations/${encodeURIComponent(conversationId!)}/external-knowledge-refs`)),
    enabled: !!kbId && !!conversationId,
    select: (d) => d.items,
  });
}

export function useProviderDocuments(provider: string, sourceId: string | null, parentId: string | null, enabled = true) {
  const q = new URLSearchParams({ limit: "50" });
  if (sourceId) q.set("source_id", sourceId);
  if (parentId) q.set("parent_id", parentId);
  return useQuery({
    queryKey: queryKeys.providerDocuments(provider, sourceId, parentId),
    queryFn: () => api<ListingPage>(`/v1/external-sources/${encodeURIComponent(provider)}/documents?${q}`),
    enabled,
    retry: false,
  });
}

export function bindExternalRefs(kbId: string, conversationId: string, refs: Partial<ExternalRefBinding>[]) {
  return api<{ items: ExternalRefBinding[] }>(kbPath(kbId, `/assistant/conversations/${encodeURIComponent(conversationId)}/external-knowledge-refs`), {
    method: "POST",
    body: { refs },
  });
}

export function unbindExternalRef(kbId: string, conversationId: string, ref: ExternalRefBinding) {
  const { provider, mode, id, target_type, node_id, document_id } = ref;
  return api<{ removed: number }>(kbPath(kbId, `/assistant/conversations/${encodeURIComponent(conversationId)}/external-knowledge-refs/remove`), {
    method: "POST",
    body: { ref: { provider, mode, id, target_type, node_id, document_id } },
  });
}

export function openExternalSource(provider: string, sourceId: string) {
  return api<{ url: string }>(`/v1/external-sources/${encodeURIComponent(provider)}/open?source_id=${encodeURIComponent(sourceId)}`);
}

// KB evaluation (issue 21): sets, runs, results. A run's progress is pushed over its events
// stream (components/evaluation/use-run-events.ts writes it into this cache); the overview is
// polled only while an active run has no working stream.
export const evalKey = (kbId: string) => ["evaluation", kbId] as const;
export const isActiveRun = (r: EvalRun) => r.status === "queued" || r.status === "running";

export function useEvaluation(kbId: string, needsPolling: (runs: EvalRun[]) => boolean = (runs) => runs.some(isActiveRun)) {
  return useQuery({
    queryKey: evalKey(kbId),
    queryFn: ({ signal }) => api<EvalOverview>(kbPath(kbId, "/evaluation"), { signal }),
    refetchInterval: (q) => (q.state.data && needsPolling(q.state.data.runs) ? 1000 : false),
  });
}

/** Writes a run's pushed state into the overview's cached run list. */
export function patchEvalRun(qc: QueryClient, kbId: string, runId: string, patch: (r: EvalRun) => EvalRun): void {
  qc.setQueryData<EvalOverview>(evalKey(kbId), (old) => (old ? { ...old, runs: old.runs.map((r) => (r.id === runId ? patch(r) : r)) } : old));
}

/** Refetches the overview and the runs' results (after a run ended). */
export function invalidateEvaluation(qc: QueryClient, kbId: string): void {
  void qc.invalidateQueries({ queryKey: evalKey(kbId) });
}

export function useEvaluationSet(kbId: string, setId: string | null) {
  return useQuery({
    queryKey: [...evalKey(kbId), "set", setId] as const,
    queryFn: ({ signal }) => api<EvalSetDetail>(kbPath(kbId, `/evaluation/sets/${encodeURIComponent(setId!)}`), { signal }),
    enabled: !!setId,
  });
}

export function useEvaluationResults(kbId: string, run: EvalRun | null, page: number, filter: string) {
  return useQuery({
    queryKey: [...evalKey(kbId), "results", run?.id, run?.done, page, filter] as const,
    queryFn: ({ signal }) =>
      api<Page<EvalResultRow>>(kbPath(kbId, `/evaluation/runs/${encodeURIComponent(run!.id)}/results?page=${page}&page_size=50&filter=${filter}`), { signal }),
    enabled: !!run,
    placeholderData: keepPreviousData,
  });
}

export function useEvaluationMutations(kbId: string) {
  const qc = useQueryClient();
  const refresh = () => void qc.invalidateQueries({ queryKey: evalKey(kbId) });
  const base = kbPath(kbId, "/evaluation");
  return {
    upload: useMutation({
      mutationFn: (input: { name: string; format: "csv" | "jsonl"; content: string }) => api<EvalSetDetail>(`${base}/sets`, { method: "POST", body: input }),
      onSuccess: refresh,
    }),
    create: useMutation({
      mutationFn: (input: { name: string; questions: EvalQuestion[] }) => api<EvalSetDetail>(`${base}/sets`, { method: "POST", body: input }),
      onSuccess: refresh,
    }),
    update: useMutation({
      mutationFn: (input: { id: string; name: string; questions: EvalQuestion[] }) =>
        api<EvalSetDetail>(`${base}/sets/${encodeURIComponent(input.id)}`, { method: "PATCH", body: { name: input.name, questions: input.questions } }),
      onSuccess: refresh,
    }),
    removeSet: useMutation({
      mutationFn: (id: string) => api(`${base}/sets/${encodeURIComponent(id)}`, { method: "DELETE" }),
      onSuccess: refresh,
    }),
    generate: useMutation({
      mutationFn: (count: number) => api<{ questions: EvalQuestion[] }>(`${base}/sets/generate`, { method: "POST", body: { count } }),
    }),
    run: useMutation({
      mutationFn: (input: { set_id: string; min_score: number }) => api<EvalRun>(`${base}/runs`, { method: "POST", body: input }),
      onSuccess: (run) => {
        // Listed at once, so its progress stream opens before the overview is read again.
        qc.setQueryData<EvalOverview>(evalKey(kbId), (old) => (old && !old.runs.some((r) => r.id === run.id) ? { ...old, runs: [run, ...old.runs] } : old));
        refresh();
      },
    }),
    cancel: useMutation({
      mutationFn: (id: string) => api<EvalRun>(`${base}/runs/${encodeURIComponent(id)}/cancel`, { method: "POST" }),
      onSuccess: refresh,
    }),
    removeRun: useMutation({
      mutationFn: (id: string) => api(`${base}/runs/${encodeURIComponent(id)}`, { method: "DELETE" }),
      onSuccess: refresh,
    }),
  };
}
