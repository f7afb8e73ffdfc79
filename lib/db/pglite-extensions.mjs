// The PostgreSQL extensions the migrations create, as PGlite loads them: one list for every place
// that opens an embedded database (the app, its database worker thread, tests, scripts), so that a
// migration needing another extension is one edit here, not one per opener. Plain JavaScript: the
// PGlite worker thread loads it without a TS loader. On a PostgreSQL server the same extensions
// come from the server's packages (README, "Run several instances").
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";

/** vector (pgvector), pg_trgm (grep_chunks' trigrams), btree_gin (its index keyed by knowledge base). */
export const PGLITE_EXTENSIONS = { vector, pg_trgm, btree_gin };
