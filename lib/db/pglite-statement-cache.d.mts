import type { PGlite, QueryOptions, Results } from "@electric-sql/pglite";

export interface StatementCacheStats {
  prepared: number;
  hits: number;
  evicted: number;
}

/** Named prepared statements for PGlite (see pglite-statement-cache.mjs). */
export declare class PGliteStatementCache {
  constructor(pg: PGlite, max?: number);
  readonly pg: PGlite;
  readonly max: number;
  readonly stats: StatementCacheStats;
  /** Same contract as PGlite#query, outside a transaction. */
  query: <T>(sql: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;
  exec: PGlite["exec"];
  /** PGlite#transaction whose `query` uses the cache too. */
  transaction: PGlite["transaction"];
}
