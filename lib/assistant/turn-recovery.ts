import "server-only";
import type { RawDb } from "@/lib/db/client";
import { INTERRUPTED, STREAMING } from "./conversations";
import { isTurnOwnerDead } from "./turn-owner";

/**
 * At start-up: the turns of processes that died mid-answer (kill -9, power loss) end now instead
 * of holding their conversations until the lease expires. Their partial answer — saved while it
 * streamed — is marked `interrupted`; a turn that died before anything was saved gets an empty
 * `interrupted` answer, so the question is not left without one. With the embedded database
 * every turn found is a dead process's (one process per data directory); on a PostgreSQL server
 * only owners this host can prove dead are touched, other hosts' turns end by lease expiry.
 */
export async function recoverInterruptedTurns(db: RawDb, opts: { embedded: boolean }): Promise<number> {
  const held = await db.$queryRawUnsafe<Array<{ id: string; owner: string | null }>>(
    `SELECT id, active_turn_owner AS owner FROM knowledge_assistant_conversations WHERE active_turn_id IS NOT NULL`,
  );
  const dead = held.filter((c) => opts.embedded || isTurnOwnerDead(c.owner));
  if (dead.length > 0) {
    const ids = dead.map((c) => c.id);
    await db.$executeRawUnsafe(
      `UPDATE knowledge_assistant_messages
          SET finish_reason = '${INTERRUPTED}', metadata_json = COALESCE(metadata_json, '{}'::jsonb) || '{"interrupted": true}'::jsonb
        WHERE conversation_id = ANY($1::text[]) AND finish_reason = '${STREAMING}'`,
      ids,
    );
    // A question with no answer after it (the turn died before its first partial save).
    await db.$executeRawUnsafe(
      `INSERT INTO knowledge_assistant_messages (id, conversation_id, role, content, metadata_json, finish_reason, created_at)
       SELECT gen_random_uuid()::text, c.id, 'assistant', '', '{"interrupted": true}'::jsonb, '${INTERRUPTED}', clock_timestamp()
         FROM knowledge_assistant_conversations c
        WHERE c.id = ANY($1::text[])
          AND (SELECT role FROM knowledge_assistant_messages m WHERE m.conversation_id = c.id ORDER BY created_at DESC, id DESC LIMIT 1) = 'user'`,
      ids,
    );
    await db.$executeRawUnsafe(
      `UPDATE knowledge_assistant_conversations c
          SET active_turn_id = NULL, active_turn_at = NULL, active_turn_owner = NULL, updated_at = now(),
              message_count = (SELECT count(*) FROM knowledge_assistant_messages m WHERE m.conversation_id = c.id),
              last_message_at = (SELECT max(created_at) FROM knowledge_assistant_messages m WHERE m.conversation_id = c.id)
        WHERE c.id = ANY($1::text[]) AND ($2::boolean OR c.active_turn_owner = ANY($3::text[]))`,
      ids,
      opts.embedded,
      dead.map((c) => c.owner ?? ""),
    );
  }
  if (opts.embedded) {
    // Rows left streaming without a lease (cannot normally happen) are interrupted as well.
    await db.$executeRawUnsafe(`UPDATE knowledge_assistant_messages SET finish_reason = '${INTERRUPTED}' WHERE finish_reason = '${STREAMING}'`);
  }
  return dead.length;
}
