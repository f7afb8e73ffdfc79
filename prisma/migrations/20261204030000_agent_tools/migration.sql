-- Agent tools (issue 17).
--
-- grep_chunks matches keywords literally (ILIKE over escaped text). A trigram GIN index lets
-- PostgreSQL and PGlite answer `content ILIKE '%keyword%'` from the index for keywords of three
-- characters or more instead of reading every chunk (pg_trgm is created by the init migration
-- and loaded by both database paths). Declared in schema.prisma so Prisma does not drop it.
CREATE INDEX IF NOT EXISTS "chunks_content_trgm_idx" ON "chunks" USING GIN ("content" gin_trgm_ops);

-- API token scopes: "full" acts as its user everywhere; "read" may only call the retrieval
-- endpoints (provider retrieve, MCP tools), which change nothing. knowledge_ids narrows a token
-- to chosen KBs (empty = every KB its user can read).
ALTER TABLE "api_tokens" ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'full';
ALTER TABLE "api_tokens" ADD COLUMN "knowledge_ids" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
