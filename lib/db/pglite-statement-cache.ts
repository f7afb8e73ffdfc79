import "server-only";
import { parse, protocol, type PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";

// PGlite's query() sends every statement unnamed, so PostgreSQL parses and plans it on every
// call. For this app's statements planning often costs more than running them (a KB summary:
// ~1 ms planning for 0.2 ms execution). This facade keeps each distinct SQL text as a named
// prepared statement, so PostgreSQL's plan cache applies (custom plans for the first calls,
// then a generic plan when it is as good) — what node-postgres does for named queries. It is
// built only from PGlite's public protocol API and is what the Prisma adapter talks to.

export interface StatementCacheStats {
  prepared: number;
  hits: number;
  evicted: number;
}

const { serialize } = protocol;

export class PGliteStatementCache {
  private readonly statements = new Map<string, { name: string; paramTypes: number[] }>();
  private seq = 0;
  readonly stats: StatementCacheStats = { prepared: 0, hits: 0, evicted: 0 };

  constructor(
    private readonly pg: PGlite,
    private readonly max = 256,
  ) {}

  /** Same contract as PGlite#query, outside a transaction. */
  query = async <T>(sql: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => {
    await this.pg._checkReady();
    return this.pg._runExclusiveTransaction(() => this.pg._runExclusiveQuery(() => this.run<T>(sql, params, options, false)));
  };

  exec: PGlite["exec"] = (sql, options) => this.pg.exec(sql, options);

  /** PGlite#transaction whose `query` uses the cache too. */
  transaction: PGlite["transaction"] = (callback) =>
    this.pg.transaction((tx) => {
      const cached: Transaction = Object.create(tx, {
        query: {
          value: <T>(sql: string, params: unknown[] = [], options?: QueryOptions) =>
            this.pg._runExclusiveQuery(() => this.run<T>(sql, params, options, true)),
        },
      });
      return callback(cached);
    });

  private async run<T>(sql: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<Results<T>> {
    const opts = { syncToFs: false };
    const messages = [];
    let entry = this.statements.get(sql);
    try {
      if (entry) {
        this.stats.hits++;
        // Refresh its place in the LRU order.
        this.statements.delete(sql);
        this.statements.set(sql, entry);
      } else {
        const name = `ka_stmt_${++this.seq}`;
        messages.push(...(await this.pg.execProtocolStream(serialize.parse({ name, text: sql, types: options?.paramTypes }), opts)));
        const described = await this.pg.execProtocolStream(serialize.describe({ type: "S", name }), opts);
        entry = { name, paramTypes: parse.parseDescribeStatementResults(described) };
        this.statements.set(sql, entry);
        this.stats.prepared++;
        await this.evict(opts);
      }
      const types = entry.paramTypes;
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const type = types[i]!;
        const serializer = options?.serializers?.[type] ?? this.pg.serializers[type];
        return serializer ? serializer(v) : String(v);
      });
      messages.push(
        ...(await this.pg.execProtocolStream(serialize.bind({ statement: entry.name, values: values as (string | null)[] }), opts)),
        ...(await this.pg.execProtocolStream(serialize.describe({ type: "P" }), opts)),
        ...(await this.pg.execProtocolStream(serialize.execute({}), opts)),
      );
    } catch (e) {
      // A statement that failed to parse was never stored. One whose cached plan no longer fits
      // the schema (feature_not_supported: "cached plan must not change result type") or that
      // vanished (invalid_sql_statement_name) is prepared afresh under a new name next time;
      // ordinary errors (a constraint, a bad value) keep it.
      const code = (e as { code?: string }).code;
      if (entry && (code === "0A000" || code === "26000")) this.forget(sql);
      throw e;
    } finally {
      messages.push(...(await this.pg.execProtocolStream(serialize.sync(), opts)));
    }
    if (!inTransaction) await this.pg.syncToFs();
    return parse.parseResults(messages, this.pg.parsers, options)[0] as Results<T>;
  }

  private async evict(opts: { syncToFs: boolean }) {
    while (this.statements.size > this.max) {
      const [oldest, { name }] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      this.stats.evicted++;
      await this.pg.execProtocolStream(serialize.close({ type: "S", name }), opts);
    }
  }

  private forget(sql: string) {
    // The old name is left to the session (closing it here could fail inside an aborted
    // transaction); this only happens after a schema change, which the app does at boot.
    this.statements.delete(sql);
  }
}
