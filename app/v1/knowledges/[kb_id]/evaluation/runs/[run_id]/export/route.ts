import { evalRunParams, evaluationScope } from "@/lib/api/evaluation-scope";
import { apiRoute } from "@/lib/api/route";
import { exportRunCsv, getRun } from "@/lib/retrieval/evaluation/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// A run as CSV, one row per question, streamed page by page.
export const GET = apiRoute<{ kb_id: string; run_id: string }>(async (request, ctx) => {
  const { kb_id, run_id } = await evaluationScope(request, await ctx.params, evalRunParams);
  await getRun(kb_id, run_id); // EVALUATION_RUN_NOT_FOUND as JSON, before the download starts
  const rows = exportRunCsv(kb_id, run_id);
  const enc = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      const { done, value } = await rows.next();
      if (done) c.close();
      else c.enqueue(enc.encode(value));
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="evaluation-${run_id}.csv"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
});
