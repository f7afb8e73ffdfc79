-- Each file's language (lib/retrieval/text/language.ts: zh | en | ja | ko, NULL = unknown), set
-- by the ingestion runner from the file's passages. A question in another language than every
-- searchable file of the KB is translated for retrieval when a chat model is configured
-- (lib/retrieval/query-translation.ts). Files indexed before this migration stay NULL until
-- they are parsed again; retrieval then detects their language from their first passages.
ALTER TABLE "knowledge_files" ADD COLUMN "language" TEXT;
