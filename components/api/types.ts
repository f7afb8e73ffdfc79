// Wire types of the HTTP API the browser uses (SPEC §4–§6). Client code never imports server
// modules; the server is the source of truth. Where the server keeps its wire shapes in a
// types-only module (no runtime code, nothing server-only: the evaluation's and the graph's),
// they are imported from there and renamed; the others mirror its responses.
import type { EvalQuestion as WireEvalQuestion } from "@/lib/retrieval/evaluation/wire-types";

export type KnowledgeRole = "owner" | "editor" | "viewer" | (string & {});

export interface KnowledgeSummary {
  id: string;
  name: string;
  description: string | null;
  remark: string | null;
  role: KnowledgeRole;
  file_count: number;
  ready_file_count: number;
  indexing_file_count: number;
  failed_file_count: number;
  total_file_size: number;
  created_at: string;
  updated_at: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  page?: number;
  page_size?: number;
}

export type FileStatus = "queued" | "parsing" | "chunking" | "embedding" | "indexing" | "success" | "failed" | (string & {});

export interface KnowledgeFile {
  id: string;
  name: string;
  file_type: string;
  size: number;
  status: FileStatus;
  embedding_status: string;
  page_count: number | null;
  chunk_count: number;
  /** Its text is in grep_chunks' trigram index (built after the file is ready). */
  grep_indexed: boolean;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeTreeItem {
  id: string;
  name: string;
  role: KnowledgeRole;
  files: KnowledgeFile[];
}

export type UploadResult =
  | { ok: true; file: KnowledgeFile }
  | { ok: false; name: string; code: string; message: string };

export type ParseStage = "queued" | "parsing" | "chunking" | "embedding" | "indexing" | "success" | "failed";

export interface ParseProgressEvent {
  stage: ParseStage | string;
  percent: number;
  message?: string;
}

export interface DocumentContent {
  file: KnowledgeFile;
  pages: { page: number; text: string }[] | null;
  chunks: { id: string; ordinal: number; page_start: number | null; page_end: number | null; heading_path: string | null; content: string }[];
}

export type AssistantStatus = "disabled" | "empty" | "ready" | "indexing" | "failed";

export interface AssistantBootstrap {
  knowledge: {
    id: string;
    name: string;
    file_count: number;
    ready_file_count: number;
    indexing_file_count: number;
    failed_file_count: number;
  };
  assistant_status: AssistantStatus;
  input_enabled: boolean;
  max_question_length: number;
  /** The chat model can call tools: the UI may offer agent mode (issue 17). */
  agent_mode_available?: boolean;
}

export interface SourceReference {
  ref_id: string;
  index: number;
  file_id: string | null;
  file_name: string | null;
  page_start: number | null;
  page_end: number | null;
  heading_path: string | null;
  quote: string;
  score: number | null;
  chunk_id: string | null;
  source_type: string;
  source_id: string | null;
  source_uri: string | null;
  source_name: string | null;
  /** Where in an external source the passage is (provider's locator); absent in older snapshots. */
  locator?: string | null;
  /** An external provider's bounded metadata. */
  metadata?: Record<string, string | number | boolean | null>;
}

// External knowledge sources (issue 18, SPEC §8).
export type ExternalTargetType = "knowledge_base" | "folder" | "document";

export interface ExternalProviderStatus {
  key: string;
  label: string;
  builtin: boolean;
  capabilities: { filters: boolean; scores: boolean; citations: boolean; list_documents?: boolean };
  openable: boolean;
  health: "ready" | "unconfigured" | "degraded" | "unavailable";
  checked_at: string;
}

export interface ExternalRefBinding {
  provider: string;
  mode: "explicit" | "all_accessible";
  id: string | null;
  name: string;
  scope: string;
  target_type: ExternalTargetType;
  node_id: string | null;
  document_id: string | null;
  parent_id: string | null;
  target_name: string;
}

export interface ListingItem {
  id: string;
  name: string;
  type: ExternalTargetType;
  source_id: string;
  parent_id: string | null;
  node_id: string | null;
  metadata: Record<string, string | number | boolean | null>;
}

export interface ListingPage {
  provider: string;
  items: ListingItem[];
  next_cursor: string | null;
  pagination_scope: "per_provider";
}




/** A question translated for retrieval into the documents' language (chat stream `retrieval` done). */
export interface TranslatedQuery {
  language: string;
  query: string;
}

export interface RetrievalSourceStatus {
  source_type: string;
  status: "ok" | "empty" | "timeout" | "error" | "unavailable" | (string & {});
  count: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  message_count: number;
  last_message_at: string | null;
  created_at: string;
}

export interface StoredMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  references: SourceReference[] | null;
  finish_reason: string | null;
  engine: string | null;
  /** What the turn recorded beside the answer: `error_code` of a failed or no-context turn, `partial`. */
  metadata?: { error_code?: string; partial?: boolean; agent_steps?: AgentStepView[] } | null;
  feedback?: MessageFeedback | null;
  created_at: string;
}

/** Thumbs up/down on an answer (issue 20), stored with the message. */
export interface MessageFeedback {
  rating: "up" | "down";
  comment: string | null;
}

/** A rated answer as the KB's owners and editors see it (GET …/assistant/feedback). */
export interface FeedbackItem {
  message_id: string;
  conversation_id: string;
  rating: "up" | "down";
  comment: string | null;
  question: string;
  answer_excerpt: string;
  user_name: string;
  rated_at: string;
}

/** A keyset page: `next_cursor` continues it, null at the end. */
export interface CursorPage<T> {
  items: T[];
  total?: number;
  next_cursor: string | null;
}

/** One tool call of an agent-mode answer, live from SSE or saved with the message (issue 17). */
export interface AgentStepView {
  id: string;
  name: string;
  arguments?: unknown;
  status: "running" | "ok" | "error";
  count: number;
  duration_ms?: number;
  summary?: string;
}

export interface SessionUser {
  id: string;
  email: string;
  name: string;
}

export interface MeResponse {
  user: SessionUser;
  auth_mode: "local" | "password";
}

export interface KnowledgeMember {
  user_id: string;
  email: string;
  name: string;
  role: KnowledgeRole;
}

/** A pending invitation by e-mail (issue 16): becomes a member at the invitee's next sign-in. */
export interface KnowledgeInvitation {
  id: string;
  email: string;
  role: "editor" | "viewer";
  assistant_enabled: boolean;
  created_at: string;
  expires_at: string;
}

/** An API token as listed (the secret is only in the create response). Issue 17. */
export interface ApiTokenSummary {
  id: string;
  name: string;
  scope: "full" | "read";
  knowledge_ids: string[];
  created_at: string;
  last_used_at: string | null;
}

// KB evaluation (issue 21): the wire shapes are the server's own, from a types-only module
// (no runtime code, nothing server-only), renamed for the browser.
export type {
  EvaluationOverview as EvalOverview,
  ResultRow as EvalResultRow,
  RunEvent as EvalRunEvent,
  RunMetrics as EvalRunMetrics,
  RunSettings as EvalRunSettings,
  RunStatus as EvalRunStatus,
  RunSummary as EvalRun,
  SetDetail as EvalSetDetail,
  SetSummary as EvalSetSummary,
  TopHit as EvalTopHit,
} from "@/lib/retrieval/evaluation/wire-types";
/** A question in the page's editor: generated drafts also carry the passage they were written from. */
export type EvalQuestion = WireEvalQuestion & { passage?: string };

// The retrieval test (issue 21): the server's wire shapes from a types-only module.
export type { HitScores as RetrievalHitScores, RetrievalTestHit, RetrievalTestResult } from "@/lib/retrieval/wire-types";
