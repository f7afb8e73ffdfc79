import type { PGlite } from "@electric-sql/pglite";

export declare const UNUSED_TEMPLATES: string[];
export declare function dropUnusedTemplates(pg: PGlite): Promise<void>;
export declare function openEmbedded(dir: string, create: (options: { initDbStartParams: string[] }) => Promise<PGlite>): Promise<PGlite>;
