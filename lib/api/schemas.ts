import { z } from "zod";

// Schemas shared by several routes. Route-specific schemas stay beside their route.
export const pagination = (maxPageSize: number, defaultPageSize = 20) =>
  z
    .object({
      page: z.coerce.number().int().min(1).max(1_000_000).default(1),
      page_size: z.coerce.number().int().min(1).max(maxPageSize).default(defaultPageSize),
    })
    .strict();

export const id = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "must be an id");

export const kbParams = z.object({ kb_id: id });
export const fileParams = z.object({ kb_id: id, file_id: id });
export type FileParams = z.infer<typeof fileParams>;
