import "server-only";
import type { RawDb } from "@/lib/db/client";
import { INTERRUPTED, STREAMING } from "./conversations";
import { isTurnOwnerDead, turnOwner, workerIdOfOwner } from "./turn-owner";

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
  await endTurns(db, dead, opts.embedded);
  if (opts.embedded) {
    // Rows left streaming without a lease (cannot normally happen) are interrupted as well.
    await db.$executeRawUnsafe(`UPDATE knowledge_assistant_messages SET finish_reason = '${INTERRUPTED}' WHERE finish_reason = '${STREAMING}'`);
  }
  return dead.length;
}

/**
 * Ends the given turns: partial answers interrupted, an empty interrupted answer where nothing
 * was saved, conversations freed (only while the same owner still holds them).
 */
async function endTurns(db: RawDb, dead: Array<{ id: string; owner: string | null }>, embedded: boolean): Promise<void> {
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
      embedded,
      dead.map((c) => c.owner ?? ""),
    );
  }
}

/**
 * Several instances on one PostgreSQL server (issue 24): a turn whose instance was killed
 * mid-answer ends within seconds, on a surviving instance, instead of at lease expiry (5 min).
 * Each instance's relay connection carries its worker id as application_name while the process
 * lives (the same liveness the ingestion runner uses for jobs); PostgreSQL drops the connection
 * when the process dies. A turn whose owner has no such connection in two checks in a row (a
 * relay reconnecting after a network blip is not death) is ended like a crashed turn at start-up.
 */
export async function recoverTurnsOfGoneInstances(
  db: RawDb,
  livenessName: (workerId: string) => string,
  suspects: Set<string>,
): Promise<number> {
  const held = await db.$queryRawUnsafe<Array<{ id: string; owner: string | null }>>(
    `SELECT id, active_turn_owner AS owner FROM knowledge_assistant_conversations
      WHERE active_turn_id IS NOT NULL AND active_turn_owner IS NOT NULL AND active_turn_owner <> $1`,
    turnOwner(),
  );
  const names = new Map<string, string>();
  for (const c of held) {
    const worker = c.owner ? workerIdOfOwner(c.owner) : null;
    if (worker && c.owner) names.set(c.owner, livenessName(worker));
  }
  if (names.size === 0) {
    suspects.clear();
    return 0;
  }
  const alive = await db.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name = ANY($1::text[])`,
    [...new Set(names.values())],
  );
  const aliveNames = new Set(alive.map((r) => r.name));
  const gone = new Set([...names].filter(([, name]) => !aliveNames.has(name)).map(([owner]) => owner));
  const dead = held.filter((c) => c.owner && gone.has(c.owner) && suspects.has(c.owner));
  suspects.clear();
  for (const owner of gone) suspects.add(owner);
  await endTurns(db, dead, false);
  return dead.length;
}

/** Checks every `everyMs` for turns of gone instances (see recoverTurnsOfGoneInstances). */
export function startTurnWatch(db: RawDb, livenessName: (workerId: string) => string, everyMs = 1500): () => void {
  const suspects = new Set<string>();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    recoverTurnsOfGoneInstances(db, livenessName, suspects)
      .then((n) => {
        if (n > 0) console.log(`[knowledge-assistant] ${n} answer(s) of a stopped instance marked interrupted`);
      })
      .catch((e) => console.error(`[knowledge-assistant] turn watch failed: ${(e as Error).message}`))
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
