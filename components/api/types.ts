// Wire types of the HTTP API the browser uses (SPEC §4–§6). Kept in components/ so client code
// never imports server modules; the server is the source of truth, these mirror its responses.

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
  created_at: string;
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
