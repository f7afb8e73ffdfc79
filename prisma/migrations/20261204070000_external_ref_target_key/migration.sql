-- Bindings of external sources are unique per normalized target key, which holds every locating
-- field (provider, mode, id, target_type, node_id, document_id): two documents or folders of one
-- source are two bindings. ref_id is optional (an all_accessible binding names no source).
ALTER TABLE "knowledge_assistant_external_refs" ADD COLUMN "target_key" TEXT;
UPDATE "knowledge_assistant_external_refs"
   SET "target_key" = concat_ws(E'\x1f', "provider", "mode", coalesce("ref_id", ''), "target_type", coalesce("node_id", ''), coalesce("document_id", ''));
ALTER TABLE "knowledge_assistant_external_refs" ALTER COLUMN "target_key" SET NOT NULL;
ALTER TABLE "knowledge_assistant_external_refs" ALTER COLUMN "ref_id" DROP NOT NULL;
DROP INDEX "knowledge_assistant_external_refs_conversation_id_provider_t_key";
-- Rows that collided under the old key cannot exist twice here; none could be inserted before.
CREATE UNIQUE INDEX "knowledge_assistant_external_refs_conversation_id_target_key_key" ON "knowledge_assistant_external_refs"("conversation_id", "target_key");
