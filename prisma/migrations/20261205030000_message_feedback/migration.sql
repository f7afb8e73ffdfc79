-- Thumbs up/down feedback on an assistant answer (issue 20 item 12), stored with the message:
-- the rating, an optional comment and when it was given. The KB's owners and editors list the
-- answers with feedback through the conversations of their KB (partial index: only rated rows).
ALTER TABLE "knowledge_assistant_messages" ADD COLUMN "feedback_rating" TEXT;
ALTER TABLE "knowledge_assistant_messages" ADD COLUMN "feedback_comment" TEXT;
ALTER TABLE "knowledge_assistant_messages" ADD COLUMN "feedback_at" TIMESTAMPTZ(3);
CREATE INDEX "knowledge_assistant_messages_feedback_at_idx" ON "knowledge_assistant_messages" ("feedback_at" DESC, "id" DESC) WHERE "feedback_at" IS NOT NULL;
