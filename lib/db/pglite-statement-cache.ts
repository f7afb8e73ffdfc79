import "server-only";

// The implementation is plain JavaScript so the PGlite worker thread can load it without a
// TypeScript loader (pglite-statement-cache.mjs); this module keeps the import path stable.
export { PGliteStatementCache, type StatementCacheStats } from "./pglite-statement-cache.mjs";
