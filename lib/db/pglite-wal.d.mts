import type { PGlite } from "@electric-sql/pglite";

export declare const INITDB_ARGS: string[];
export declare function walSettingsFor(segmentMb: number): Record<"max_wal_size" | "min_wal_size", string>;
export declare function createWithBoundedWal(dir: string, create: (options: { initDbStartParams: string[] }) => Promise<PGlite>): Promise<PGlite>;
export declare const CHECKPOINT_EVERY_BYTES: number;
export declare function startCheckpointer(pg: PGlite, opts?: { intervalMs?: number; everyBytes?: number; nudgeMs?: number }): (() => void) & { nudge: () => void };
