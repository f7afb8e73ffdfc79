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
  "CONVERSATION_BUSY",
  "NO_RELEVANT_CONTEXT",
  "MODEL_UNAVAILABLE",
  "EMBEDDING_UNAVAILABLE",
  "RATE_LIMITED",
  "EMAIL_TAKEN",
  "INVALID_CREDENTIALS",
  "USER_NOT_FOUND",
  // External knowledge sources (issue 18)
  "PROVIDER_NOT_FOUND",
  "PROVIDER_UNAVAILABLE",
  "EXTERNAL_SOURCE_NOT_FOUND",
  "LISTING_UNSUPPORTED",
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
  CONVERSATION_BUSY: "This conversation is still answering a question.",
  NO_RELEVANT_CONTEXT: "Nothing relevant was found in the knowledge base.",
  MODEL_UNAVAILABLE: "The answer model is unavailable.",
  EMBEDDING_UNAVAILABLE: "The embedding model is unavailable.",
  RATE_LIMITED: "Too many requests; try again shortly.",
  EMAIL_TAKEN: "An account with this e-mail already exists.",
  INVALID_CREDENTIALS: "E-mail or password is wrong.",
  USER_NOT_FOUND: "No user with this e-mail.",
  PROVIDER_NOT_FOUND: "No external knowledge provider with this key is configured.",
  PROVIDER_UNAVAILABLE: "The external knowledge provider is unavailable.",
  EXTERNAL_SOURCE_NOT_FOUND: "The external source or document was not found.",
  LISTING_UNSUPPORTED: "This provider cannot list its documents.",
  INTERNAL_ERROR: "Something went wrong on our side.",
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(code: ErrorCode, message?: string, details?: unknown) {
    super(message ?? DEFAULT_MESSAGES[code]);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }
}

export function isAppError(e: unknown): e is AppError {
  if (e instanceof AppError) return true;
  // Next bundles this module into several chunks, each with its own AppError class: an error
  // thrown by the process-wide retrieval runtime (built in another chunk, kept on globalThis)
  // fails instanceof here. It is still ours when it has our name and one of our codes.
  return e instanceof Error && e.name === "AppError" && (ERROR_CODES as readonly string[]).includes((e as { code?: unknown }).code as string);
}

export function defaultMessage(code: ErrorCode): string {
  return DEFAULT_MESSAGES[code];
}
