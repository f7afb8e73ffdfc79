// Plain ES module (no TypeScript) so the PGlite worker thread (pglite-worker.mjs) can load it
// with Node alone — in `next start` there is no TypeScript loader. Types: pglite-statement-cache.d.mts.
//
// PGlite's query() sends every statement unnamed, so PostgreSQL parses and plans it on every
// call. For this app's statements planning often costs more than running them (a KB summary:
// ~1 ms planning for 0.2 ms execution). This facade keeps each distinct SQL text as a named
// prepared statement, so PostgreSQL's plan cache applies (custom plans for the first calls,
// then a generic plan when it is as good) — what node-postgres does for named queries. It is
// built only from PGlite's public protocol API and is what the Prisma adapter talks to.
import { parse, protocol } from "@electric-sql/pglite";

const { serialize } = protocol;

function concat(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export class PGliteStatementCache {
  /** @type {Map<string, { name: string; paramTypes: number[] }>} */
  #statements = new Map();
  #seq = 0;
  stats = { prepared: 0, hits: 0, evicted: 0 };

  /**
   * @param {import("@electric-sql/pglite").PGlite} pg
   * @param {number} [max]
   */
  constructor(pg, max = 256) {
    this.pg = pg;
    this.max = max;
  }

  /** Same contract as PGlite#query, outside a transaction. */
  query = async (sql, params = [], options) => {
    await this.pg._checkReady();
    return this.pg._runExclusiveTransaction(() => this.pg._runExclusiveQuery(() => this.#run(sql, params, options, false)));
  };

  exec = (sql, options) => this.pg.exec(sql, options);

  /** PGlite#transaction whose `query` uses the cache too. */
  transaction = (callback) =>
    this.pg.transaction((tx) => {
      const cached = Object.create(tx, {
        query: {
          value: (sql, params = [], options) => this.pg._runExclusiveQuery(() => this.#run(sql, params, options, true)),
        },
      });
      return callback(cached);
    });

  async #run(sql, params, options, inTransaction) {
    const pg = this.pg;
    const opts = { syncToFs: false };
    const messages = [];
    let synced = false;
    // Explicit parameter types change how the text is parsed, so they are part of the key.
    const key = options?.paramTypes?.length ? `${sql}\u0000${options.paramTypes.join(",")}` : sql;
    let entry = this.#statements.get(key);
    try {
      if (entry) {
        this.stats.hits++;
        // Refresh its place in the LRU order.
        this.#statements.delete(key);
        this.#statements.set(key, entry);
      } else {
        const name = `ka_stmt_${++this.#seq}`;
        messages.push(...(await pg.execProtocolStream(serialize.parse({ name, text: sql, types: options?.paramTypes }), opts)));
        const described = await pg.execProtocolStream(serialize.describe({ type: "S", name }), opts);
        entry = { name, paramTypes: parse.parseDescribeStatementResults(described) };
        this.#statements.set(key, entry);
        this.stats.prepared++;
        await this.#evict(opts);
      }
      const types = entry.paramTypes;
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const type = types[i];
        const serializer = options?.serializers?.[type] ?? pg.serializers[type];
        return serializer ? serializer(v) : String(v);
      });
      // Bind, describe, execute and sync go to the backend as one buffer: PGlite runs its main
      // loop until the buffer is consumed, and after an error the backend skips to the Sync.
      const batch = concat([serialize.bind({ statement: entry.name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()]);
      // Once sent, the Sync is processed even when an earlier message fails.
      synced = true;
      messages.push(...(await pg.execProtocolStream(batch, opts)));
    } catch (e) {
      // A statement that failed to parse was never stored. One whose cached plan no longer fits
      // the schema (feature_not_supported: "cached plan must not change result type") or that
      // vanished (invalid_sql_statement_name) is prepared afresh under a new name next time;
      // ordinary errors (a constraint, a bad value) keep it.
      const code = e?.code;
      if (entry && (code === "0A000" || code === "26000")) this.#forget(key);
      throw e;
    } finally {
      if (!synced) messages.push(...(await pg.execProtocolStream(serialize.sync(), opts)));
    }
    if (!inTransaction) await pg.syncToFs();
    return parse.parseResults(messages, pg.parsers, options)[0];
  }

  async #evict(opts) {
    while (this.#statements.size > this.max) {
      const [oldest, { name }] = this.#statements.entries().next().value;
      this.#statements.delete(oldest);
      this.stats.evicted++;
      await this.pg.execProtocolStream(serialize.close({ type: "S", name }), opts);
    }
  }

  #forget(key) {
    // The old name is left to the session (closing it here could fail inside an aborted
    // transaction); this only happens after a schema change, which the app does at boot.
    this.#statements.delete(key);
  }
}
