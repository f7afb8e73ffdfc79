import "server-only";
import { z } from "zod";
import { getRawDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { queryKnowledgeGraph } from "@/lib/graph/query";
import type { ToolDefinition } from "./types";

// query_knowledge_graph (SPEC §9, seed 003): entities extracted from the KBs and the relations
// between them, with the passages that support each relation so an answer can cite them.
// Thin over lib/graph/query.ts; access through the caller's precomputed readable KB ids only.

const id = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "must be an id");

const inputSchema = z
  .object({
    // Optional, as for knowledge_search: by default every KB the caller may read (at most 8).
    knowledge_base_ids: z.array(id).min(1).max(8).optional(),
    query: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .refine((s) => !s.includes("\u0000"), "query contains a NUL character"),
    depth: z.union([z.literal(1), z.literal(2)]).default(1),
    max_entities: z.number().int().min(1).max(10).default(3),
    max_relations: z.number().int().min(1).max(20).default(8),
  })
  .strict();

const passage = z.object({
  chunk_id: z.string(),
  file_id: z.string(),
  file_name: z.string(),
  page_start: z.number().nullable(),
  page_end: z.number().nullable(),
  heading_path: z.string(),
  quote: z.string(),
});

const outputSchema = z.object({
  entities: z.array(
    z.object({
      id: z.string(),
      knowledge_id: z.string(),
      name: z.string(),
      type: z.string(),
      aliases: z.array(z.string()),
      description: z.string(),
      mention_count: z.number(),
      score: z.number().optional(),
      relations: z.array(
        z.object({
          id: z.string(),
          source_id: z.string(),
          target_id: z.string(),
          source_name: z.string(),
          target_name: z.string(),
          relation: z.string(),
          description: z.string(),
          support_count: z.number(),
          weight: z.number(),
          depth: z.union([z.literal(1), z.literal(2)]),
          passages: z.array(passage),
        }),
      ),
    }),
  ),
});

export type QueryKnowledgeGraphInput = z.input<typeof inputSchema>;
export type QueryKnowledgeGraphOutput = z.infer<typeof outputSchema>;

export const queryKnowledgeGraphTool: ToolDefinition<z.infer<typeof inputSchema>, QueryKnowledgeGraphOutput> = {
  name: "query_knowledge_graph",
  description: [
    "Explore the knowledge graph extracted from knowledge bases: the entities (products, people, organizations, places, roles, works) the documents name and how they relate.",
    "Give entity names or a short phrase as `query` (matched fuzzily); the result lists the matched entities, their strongest relations first (co-occurrence weighted by PMI, or a stated relation),",
    "and for each relation the passages that support it (file, page, quote) to cite. Use depth 2 to find indirect connections. Use knowledge_search for questions about content.",
  ].join(" "),
  inputSchema: inputSchema as unknown as z.ZodType<z.infer<typeof inputSchema>>,
  outputSchema,
  async run(input, ctx) {
    const parsed = inputSchema.safeParse(input);
    if (!parsed.success) throw new AppError("INVALID_PARAMS", parsed.error.issues[0]?.message ?? "invalid input");
    const args = parsed.data;
    // A KB outside the caller's access targets looks missing, exactly like one that does not exist.
    const kbs = args.knowledge_base_ids ?? [...ctx.readableKnowledgeIds].slice(0, 8);
    for (const kb of kbs) if (!ctx.readableKnowledgeIds.has(kb)) throw new AppError("KNOWLEDGE_NOT_FOUND");
    if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error("aborted");
    const db = await getRawDb();
    return queryKnowledgeGraph(db, {
      knowledgeIds: [...new Set(kbs)],
      query: args.query,
      depth: args.depth,
      maxEntities: args.max_entities,
      maxRelations: args.max_relations,
      passagesPerRelation: 2,
    });
  },
  summarize(output) {
    const relations = output.entities.reduce((n, e) => n + e.relations.length, 0);
    const names = output.entities.map((e) => e.name).slice(0, 3).join(", ");
    return {
      count: output.entities.length,
      summary: output.entities.length === 0 ? "No matching entity in the knowledge graph" : `${output.entities.length} entities (${names}), ${relations} relations`,
    };
  },
};
