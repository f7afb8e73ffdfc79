import type { PGlite } from "@electric-sql/pglite";

export declare const WAL_SETTINGS: Record<"max_wal_size" | "min_wal_size", string>;
export declare function createWithBoundedWal(dir: string, create: () => Promise<PGlite>): Promise<PGlite>;
export declare const CHECKPOINT_EVERY_BYTES: number;
export declare function startCheckpointer(pg: PGlite, opts?: { intervalMs?: number; everyBytes?: number; nudgeMs?: number }): (() => void) & { nudge: () => void };
