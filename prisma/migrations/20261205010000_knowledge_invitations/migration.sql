-- Pending invitations to a KB by e-mail (issue 16: member-add must not tell whether an e-mail
-- has an account). Adding anyone who is not yet a member creates one of these, whether or not
-- the e-mail has an account; it becomes a knowledge_members row when a person holding that
-- e-mail signs in, signs up or lists their KBs (lib/auth/members.ts acceptInvitations), and is
-- ignored after expires_at.
CREATE TABLE "knowledge_invitations" (
  "id" TEXT NOT NULL,
  "knowledge_id" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "assistant_enabled" BOOLEAN NOT NULL DEFAULT true,
  "invited_by_id" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "knowledge_invitations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "knowledge_invitations_knowledge_id_email_key" ON "knowledge_invitations"("knowledge_id", "email");
CREATE INDEX "knowledge_invitations_email_idx" ON "knowledge_invitations"("email");
ALTER TABLE "knowledge_invitations" ADD CONSTRAINT "knowledge_invitations_knowledge_id_fkey" FOREIGN KEY ("knowledge_id") REFERENCES "knowledges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
