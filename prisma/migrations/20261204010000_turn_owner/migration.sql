-- The process that holds a conversation's turn lease ("<host>:<pid>:<boot id>"), so a restarted
-- server can tell the turns of a dead process (kill -9) from live ones and release them at once.
ALTER TABLE "knowledge_assistant_conversations" ADD COLUMN "active_turn_owner" TEXT;
