// Rerank client for the common `POST {baseUrl}/rerank` shape (Jina, Cohere-compatible gateways,
// DashScope). Rerank only refines an order retrieval already has, so its failures use their own
// error type that the caller can catch and ignore; aborts still surface as AbortError.
import { z } from "zod";
import { ModelCall, endpointUrl } from "./http";

export class RerankUnavailableError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "RerankUnavailableError";
    this.status = status;
  }
}

export interface RerankRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  query: string;
  documents: string[];
  topN?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface RerankResult {
  index: number;
  relevance_score: number;
}

const resultsSchema = z.array(z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() }));
// Jina/Cohere answer {results}, DashScope's native API {output:{results}}, a few gateways {data}.
const responseSchema = z.union([
  z.object({ results: resultsSchema }),
  z.object({ output: z.object({ results: resultsSchema }) }).transform((r) => ({ results: r.output.results })),
  z.object({ data: resultsSchema }).transform((r) => ({ results: r.data })),
]);

/** Results sorted by relevance, best first, at most topN. */
export async function rerank(req: RerankRequest): Promise<RerankResult[]> {
  if (req.documents.length === 0) return [];
  const topN = Math.min(req.topN ?? req.documents.length, req.documents.length);
  const call = new ModelCall({
    label: "Rerank model",
    url: endpointUrl(req.baseUrl, "rerank"),
    apiKey: req.apiKey,
    signal: req.signal,
    timeoutMs: req.timeoutMs,
    makeError: (message, details) => new RerankUnavailableError(message, details.status),
  });
  try {
    const res = await call.post(
      { model: req.model, query: req.query, documents: req.documents, top_n: topN },
      "application/json",
    );
    const parsed = responseSchema.safeParse(await call.readJson(res));
    if (!parsed.success) throw call.fail(`returned a response of an unexpected shape (${call.endpoint}).`);
    const results = parsed.data.results;
    const bad = results.find((r) => r.index >= req.documents.length || !Number.isFinite(r.relevance_score));
    if (bad) throw call.fail(`returned an invalid result for index ${bad.index} (${call.endpoint}).`);
    return results
      .map(({ index, relevance_score }) => ({ index, relevance_score }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, topN);
  } finally {
    call.dispose();
  }
}
