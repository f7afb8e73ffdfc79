import type { TestEnv } from "../../ingestion/helpers";

/** A KB's graph as comparable strings: entity@chunk-ordinal x mention count, and the number of
 *  relation supports the mention row holds. */
export async function graphOf(t: TestEnv, kb: string): Promise<string[]> {
  const rows = await t.db.$queryRawUnsafe<{ k: string }[]>(
    `SELECT e.norm_name || '@' || c.ordinal || 'x' || m.count || ' ' || coalesce(cardinality(m.relation_ids), 0) AS k
       FROM graph_mentions m JOIN graph_entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id
      WHERE e.knowledge_id = $1 ORDER BY 1`,
    kb,
  );
  return rows.map((r) => r.k);
}
