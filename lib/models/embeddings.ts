// OpenAI-compatible embeddings client. Vectors go into a pgvector column of fixed dimension, so
// one bad vector (NaN, wrong length, missing row) must fail the whole call rather than be stored.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { ModelCall, endpointUrl, modelUnavailableMessage } from "./http";

/** DashScope's text-embedding-v3/v4 (the SPEC's example model) accept at most 10 inputs per call. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 10;

export interface EmbedRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Requested output size (text-embedding-3, text-embedding-v3/v4); also enforced on the result. */
  dimensions?: number;
  inputs: string[];
  signal?: AbortSignal;
  batchSize?: number;
  /** Per batch call. */
  timeoutMs?: number;
}

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative().optional(), embedding: z.array(z.unknown()) })),
});

/** Returns one vector per input, in input order. Batches run one after another (provider rate limits). */
export async function embedTexts(req: EmbedRequest): Promise<number[][]> {
  const batchSize = Math.max(1, Math.floor(req.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE));
  const out: number[][] = [];
  let width = req.dimensions;
  for (let start = 0; start < req.inputs.length; start += batchSize) {
    const batch = req.inputs.slice(start, start + batchSize);
    const vectors = await embedBatch(req, batch, width);
    width ??= vectors[0]?.length;
    out.push(...vectors);
  }
  return out;
}

async function embedBatch(req: EmbedRequest, batch: string[], width: number | undefined): Promise<number[][]> {
  const call = new ModelCall({
    label: "Embedding model",
    url: endpointUrl(req.baseUrl, "embeddings"),
    apiKey: req.apiKey,
    signal: req.signal,
    timeoutMs: req.timeoutMs,
    // The message names the endpoint and quotes its reply: log only. Users see the status.
    makeError: (message, details) =>
      new AppError("EMBEDDING_UNAVAILABLE", message, details, { publicMessage: modelUnavailableMessage("embedding", details.status) }),
  });
  try {
    const res = await call.post(
      {
        model: req.model,
        input: batch,
        encoding_format: "float",
        ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
      },
      "application/json",
    );
    const parsed = responseSchema.safeParse(await call.readJson(res));
    if (!parsed.success) throw call.fail(`returned a response of an unexpected shape (${call.endpoint}).`);
    return orderAndValidate(parsed.data.data, batch.length, width, (reason) => call.fail(`${reason} (${call.endpoint}).`));
  } finally {
    call.dispose();
  }
}

/** Pure: puts rows in input order and checks count, finiteness and a common width. */
export function orderAndValidate(
  rows: ReadonlyArray<{ index?: number; embedding: unknown[] }>,
  expected: number,
  width: number | undefined,
  fail: (reason: string) => Error,
): number[][] {
  if (rows.length !== expected) throw fail(`returned ${rows.length} vectors for ${expected} inputs`);
  if (expected === 0) return [];
  const ordered: (number[] | undefined)[] = new Array(expected);
  rows.forEach((row, position) => {
    const i = row.index ?? position;
    if (i >= expected || ordered[i]) throw fail(`returned an invalid or duplicate vector index ${i}`);
    if (!row.embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw fail(`returned a vector with non-finite values at index ${i}`);
    }
    ordered[i] = row.embedding as number[];
  });
  const w = width ?? ordered[0]!.length;
  for (const v of ordered as number[][]) {
    if (v.length === 0 || v.length !== w) throw fail(`returned a vector of length ${v.length}, expected ${w}`);
  }
  return ordered as number[][];
}
