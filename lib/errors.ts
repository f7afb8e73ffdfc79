// One error class with typed codes (SPEC §4). Every layer throws AppError; app/ maps it to the
// envelope with toErrorResponse (lib/api/envelope.ts).
export const ERROR_CODES = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "INVALID_PARAMS",
  "PAYLOAD_TOO_LARGE",
  "KNOWLEDGE_NOT_FOUND",
  "FILE_NOT_FOUND",
  "FILE_NOT_IN_KNOWLEDGE",
  "FILE_TYPE_UNSUPPORTED",
  "FILE_TOO_LARGE",
  "FILE_DUPLICATE",
  "FILE_NOT_SEARCHABLE",
  "KNOWLEDGE_QUOTA_EXCEEDED",
  "MESSAGE_EMPTY",
  "MESSAGE_TOO_LONG",
  "KNOWLEDGE_EMPTY",
  "KNOWLEDGE_NOT_READY",
  "CONVERSATION_NOT_FOUND",
  "ENTITY_NOT_FOUND",
  "RELATION_NOT_FOUND",
  "CONVERSATION_BUSY",
  "NO_RELEVANT_CONTEXT",
  "MODEL_UNAVAILABLE",
  "EMBEDDING_UNAVAILABLE",
  "RATE_LIMITED",
  "INVALID_CREDENTIALS",
  "USER_NOT_FOUND",
  "INVITATION_NOT_FOUND",
  // Several instances (issue 24): originals in object storage, graceful stop.
  "ORIGINAL_NOT_FOUND",
  "STORAGE_UNAVAILABLE",
  "SERVER_STOPPING",
  "HOST_NOT_ALLOWED",
  // Agent tools and MCP (issue 17).
  "TOOL_NOT_FOUND",
  "TOOL_TIMEOUT",
  "MODEL_NO_TOOL_SUPPORT",
  // External knowledge sources (issue 18)
  "PROVIDER_NOT_FOUND",
  "PROVIDER_UNAVAILABLE",
  "EXTERNAL_SOURCE_NOT_FOUND",
  "LISTING_UNSUPPORTED",
  // KB evaluation (issue 21)
  "EVALUATION_SET_NOT_FOUND",
  "EVALUATION_RUN_NOT_FOUND",
  "QUESTION_SET_INVALID",
  "QUESTION_SET_TOO_LARGE",
  // Conversation experience (issue 20 item 12): feedback, edit and resend.
  "MESSAGE_NOT_FOUND",
  "INTERNAL_ERROR",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  UNAUTHENTICATED: "Sign in to continue.",
  FORBIDDEN: "You do not have permission to do this.",
  INVALID_PARAMS: "The request parameters are invalid.",
  PAYLOAD_TOO_LARGE: "The request body is too large.",
  KNOWLEDGE_NOT_FOUND: "Knowledge base not found.",
  FILE_NOT_FOUND: "File not found.",
  FILE_NOT_IN_KNOWLEDGE: "The file does not belong to this knowledge base.",
  FILE_TYPE_UNSUPPORTED: "This file type is not supported.",
  FILE_TOO_LARGE: "The file is too large.",
  FILE_DUPLICATE: "The same file already exists in this knowledge base.",
  FILE_NOT_SEARCHABLE: "The file is not searchable yet.",
  KNOWLEDGE_QUOTA_EXCEEDED: "The knowledge base is full.",
  MESSAGE_EMPTY: "The question is empty.",
  MESSAGE_TOO_LONG: "The question is too long.",
  KNOWLEDGE_EMPTY: "The knowledge base has no files.",
  KNOWLEDGE_NOT_READY: "The knowledge base has no searchable files yet.",
  CONVERSATION_NOT_FOUND: "Conversation not found.",
  ENTITY_NOT_FOUND: "Entity not found in this knowledge base's graph.",
  RELATION_NOT_FOUND: "Relation not found in this knowledge base's graph.",
  CONVERSATION_BUSY: "This conversation is still answering a question.",
  NO_RELEVANT_CONTEXT: "Nothing relevant was found in the knowledge base.",
  MODEL_UNAVAILABLE: "The answer model is unavailable.",
  EMBEDDING_UNAVAILABLE: "The embedding model is unavailable.",
  RATE_LIMITED: "Too many requests; try again shortly.",
  INVALID_CREDENTIALS: "E-mail or password is wrong.",
  USER_NOT_FOUND: "That user is not a member.",
  INVITATION_NOT_FOUND: "No pending invitation with this id in this knowledge base.",
  ORIGINAL_NOT_FOUND: "The stored original of this file is missing from storage. Delete the file and upload it again.",
  STORAGE_UNAVAILABLE: "The file storage is unavailable; nothing was saved. Try again shortly.",
  SERVER_STOPPING: "This server is restarting; ask again in a moment.",
  HOST_NOT_ALLOWED: "This server does not answer to that host name.",
  TOOL_NOT_FOUND: "No such tool.",
  TOOL_TIMEOUT: "The tool did not finish in time.",
  MODEL_NO_TOOL_SUPPORT: "The configured chat model does not support tool calling, so agent mode is unavailable.",
  PROVIDER_NOT_FOUND: "No external knowledge provider with this key is configured.",
  PROVIDER_UNAVAILABLE: "The external knowledge provider is unavailable.",
  EXTERNAL_SOURCE_NOT_FOUND: "The external source or document was not found.",
  LISTING_UNSUPPORTED: "This provider cannot list its documents.",
  EVALUATION_SET_NOT_FOUND: "Question set not found.",
  EVALUATION_RUN_NOT_FOUND: "Evaluation run not found.",
  QUESTION_SET_INVALID: "The question set has no usable question.",
  QUESTION_SET_TOO_LARGE: "The question set is too large.",
  MESSAGE_NOT_FOUND: "Message not found in this conversation.",
  INTERNAL_ERROR: "Something went wrong on our side.",
};

// Next bundles this module into several chunks (instrumentation, each route), each with its own
// AppError class: an error thrown by the retrieval runtime (created at boot) is not `instanceof`
// the class a route's mapper sees. So an AppError is recognised by a process-wide brand
// (Symbol.for is shared across chunks) and a known code, never by its class identity.
const BRAND = Symbol.for("knowledge-assistant.AppError");
const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  /** What a user or API client is told; `message` may hold internal detail for the log. */
  readonly publicMessage: string;
  readonly [BRAND] = true;
  /**
   * `opts.publicMessage`: for failures whose message names internals (an upstream model's URL, its
   * error body), the text shown instead; the full message goes to the server log only.
   */
  constructor(code: ErrorCode, message?: string, details?: unknown, opts?: { publicMessage?: string }) {
    super(message ?? DEFAULT_MESSAGES[code]);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.publicMessage = opts?.publicMessage ?? this.message;
  }
}

/** The user-facing text of an AppError (see `publicMessage`); logs the internal detail if any. */
export function publicMessageOf(e: AppError, logLabel = "[api]"): string {
  const shown = typeof e.publicMessage === "string" ? e.publicMessage : e.message;
  if (shown !== e.message) console.warn(`${logLabel} ${e.code}: ${e.message}`);
  return shown;
}

export function isAppError(e: unknown): e is AppError {
  if (typeof e !== "object" || e === null) return false;
  const branded = e as { [BRAND]?: unknown; code?: unknown; message?: unknown };
  return branded[BRAND] === true && typeof branded.code === "string" && KNOWN_CODES.has(branded.code) && typeof branded.message === "string";
}

export function defaultMessage(code: ErrorCode): string {
  return DEFAULT_MESSAGES[code];
}
