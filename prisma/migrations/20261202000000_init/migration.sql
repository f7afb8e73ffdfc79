-- Initial schema (SPEC §3). Written to match prisma/schema.prisma; applied by lib/db/migrate.ts.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE "users" (
  "id" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "password_hash" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

CREATE TABLE "sessions" (
  "id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

CREATE TABLE "knowledges" (
  "id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "description" TEXT NOT NULL DEFAULT '',
  "remark" TEXT NOT NULL DEFAULT '',
  "owner_id" TEXT NOT NULL,
  "embedding_model" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledges_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "knowledges_owner_id_idx" ON "knowledges"("owner_id");

CREATE TABLE "knowledge_members" (
  "knowledge_id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "assistant_enabled" BOOLEAN NOT NULL DEFAULT true,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledge_members_pkey" PRIMARY KEY ("knowledge_id","user_id")
);
CREATE INDEX "knowledge_members_user_id_idx" ON "knowledge_members"("user_id");

CREATE TABLE "knowledge_files" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "file_type" TEXT NOT NULL,
  "mime_type" TEXT NOT NULL,
  "size" BIGINT NOT NULL,
  "sha256" TEXT NOT NULL,
  "storage_key" TEXT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'queued',
  "embedding_status" TEXT NOT NULL DEFAULT 'pending',
  "error_code" TEXT,
  "error_message" TEXT,
  "page_count" INTEGER,
  "chunk_count" INTEGER NOT NULL DEFAULT 0,
  "uploaded_by_id" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledge_files_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "knowledge_files_knowledge_id_sha256_key" ON "knowledge_files"("knowledge_id", "sha256");
CREATE INDEX "knowledge_files_knowledge_id_status_idx" ON "knowledge_files"("knowledge_id", "status");

CREATE TABLE "chunks" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "ordinal" INTEGER NOT NULL,
  "content" TEXT NOT NULL,
  "page_start" INTEGER,
  "page_end" INTEGER,
  "heading_path" TEXT NOT NULL DEFAULT '',
  "tokens" TEXT NOT NULL DEFAULT '',
  "token_count" INTEGER NOT NULL DEFAULT 0,
  "embedding" vector,
  "embedding_model" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "chunks_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "chunks_file_id_ordinal_key" ON "chunks"("file_id", "ordinal");
CREATE INDEX "chunks_knowledge_id_idx" ON "chunks"("knowledge_id");

CREATE TABLE "chunk_terms" (
  "chunk_id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "term" TEXT NOT NULL,
  "tf" INTEGER NOT NULL,
  CONSTRAINT "chunk_terms_pkey" PRIMARY KEY ("chunk_id","term")
);
CREATE INDEX "chunk_terms_knowledge_id_term_idx" ON "chunk_terms"("knowledge_id", "term");

CREATE TABLE "ingestion_jobs" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "file_id" TEXT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'queued',
  "stage" TEXT NOT NULL DEFAULT 'queued',
  "percent" INTEGER NOT NULL DEFAULT 0,
  "message" TEXT NOT NULL DEFAULT '',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "locked_by" TEXT,
  "locked_at" TIMESTAMPTZ(3),
  "error_code" TEXT,
  "error_message" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "finished_at" TIMESTAMPTZ(3),
  CONSTRAINT "ingestion_jobs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "ingestion_jobs_status_created_at_idx" ON "ingestion_jobs"("status", "created_at");
CREATE INDEX "ingestion_jobs_file_id_idx" ON "ingestion_jobs"("file_id");

CREATE TABLE "knowledge_assistant_conversations" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "title" TEXT NOT NULL DEFAULT '',
  "message_count" INTEGER NOT NULL DEFAULT 0,
  "last_message_at" TIMESTAMPTZ(3),
  "active_turn_id" TEXT,
  "active_turn_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledge_assistant_conversations_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "knowledge_assistant_conversations_knowledge_id_user_id_last_idx" ON "knowledge_assistant_conversations"("knowledge_id", "user_id", "last_message_at");

CREATE TABLE "knowledge_assistant_messages" (
  "id" TEXT NOT NULL,
  "conversation_id" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "content" TEXT NOT NULL,
  "references_json" JSONB,
  "usage_json" JSONB,
  "metadata_json" JSONB,
  "finish_reason" TEXT,
  "engine" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledge_assistant_messages_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "knowledge_assistant_messages_conversation_id_created_at_idx" ON "knowledge_assistant_messages"("conversation_id", "created_at");

CREATE TABLE "knowledge_assistant_external_refs" (
  "id" TEXT NOT NULL,
  "conversation_id" TEXT NOT NULL,
  "provider" TEXT NOT NULL,
  "mode" TEXT NOT NULL,
  "ref_id" TEXT NOT NULL,
  "name" TEXT NOT NULL DEFAULT '',
  "scope" TEXT NOT NULL DEFAULT '',
  "target_type" TEXT NOT NULL,
  "node_id" TEXT,
  "document_id" TEXT,
  "parent_id" TEXT,
  "target_name" TEXT NOT NULL DEFAULT '',
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "knowledge_assistant_external_refs_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "knowledge_assistant_external_refs_conversation_id_provider_t_key" ON "knowledge_assistant_external_refs"("conversation_id", "provider", "target_type", "ref_id");

CREATE TABLE "api_tokens" (
  "id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "token_hash" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "last_used_at" TIMESTAMPTZ(3),
  "revoked_at" TIMESTAMPTZ(3),
  CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_members" ADD CONSTRAINT "knowledge_members_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_members" ADD CONSTRAINT "knowledge_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_files" ADD CONSTRAINT "knowledge_files_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "knowledge_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "chunk_terms" ADD CONSTRAINT "chunk_terms_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ingestion_jobs" ADD CONSTRAINT "ingestion_jobs_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ingestion_jobs" ADD CONSTRAINT "ingestion_jobs_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "knowledge_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_assistant_conversations" ADD CONSTRAINT "knowledge_assistant_conversations_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_assistant_conversations" ADD CONSTRAINT "knowledge_assistant_conversations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_assistant_messages" ADD CONSTRAINT "knowledge_assistant_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "knowledge_assistant_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_assistant_external_refs" ADD CONSTRAINT "knowledge_assistant_external_refs_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "knowledge_assistant_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
