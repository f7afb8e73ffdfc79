import "server-only";
import type { ChunkFeed, HeadingTermRun, IndexableChunk } from "@/lib/retrieval/index-writer";

// A file's chunks as its parse thread sends them (parse-pool.ts): the runner starts writing the
// first ones while the thread still tokenizes the rest (issue 22 item 2). Filled by the pool's
// callbacks; read by writeFileChunksInBatches through the ChunkFeed interface.

export class IncomingChunks implements ChunkFeed {
  readonly chunks: IndexableChunk[] = [];
  private runs: readonly HeadingTermRun[] | null = null;
  private failed: { reason: unknown } | null = null;
  private waiters: Array<() => void> = [];

  constructor(readonly total: number) {}

  push(items: readonly IndexableChunk[]): void {
    for (const c of items) this.chunks.push(c);
    this.wake();
  }

  /** The last slice came; the file's heading runs with it. */
  finish(headingRuns: readonly HeadingTermRun[]): void {
    this.runs = headingRuns;
    this.wake();
  }

  /** The parse failed or was cancelled: every wait rejects with its reason. */
  fail(error: unknown): void {
    this.failed ??= { reason: error };
    this.wake();
  }

  async upTo(n: number): Promise<void> {
    while (this.chunks.length < Math.min(n, this.total) && this.runs === null) await this.next();
    if (this.chunks.length < Math.min(n, this.total)) throw this.failed ? this.failed.reason : new Error(`the parse ended after ${this.chunks.length} of ${this.total} chunks`);
  }

  async headingRuns(): Promise<readonly HeadingTermRun[]> {
    while (this.runs === null) await this.next();
    return this.runs;
  }

  private next(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed.reason);
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** What the parse pool calls as a file's chunks come (ParsePool.run's options). */
export interface ChunkHooks {
  onChunked(chunkCount: number): void;
  onChunks(items: IndexableChunk[]): void;
}

/**
 * Starts a parse whose chunks can be written as they come: `start` runs the task with the hooks
 * given (the runner wraps ParsePool.run in its storage's local copy of the file). `feed` resolves
 * once the document is chunked, or rejects if the parse fails before that; `parsed` is the
 * whole result (page count, every chunk, heading runs).
 */
export function parseWithFeed<R extends { headingRuns: readonly HeadingTermRun[] }>(
  start: (hooks: ChunkHooks) => Promise<R>,
): { feed: Promise<IncomingChunks>; parsed: Promise<R> } {
  let incoming: IncomingChunks | null = null;
  let chunked!: (feed: IncomingChunks) => void;
  const chunkedNow = new Promise<IncomingChunks>((resolve) => (chunked = resolve));
  const parsed = start({
    onChunked: (count) => {
      incoming = new IncomingChunks(count);
      chunked(incoming);
    },
    onChunks: (items) => incoming?.push(items),
  });
  parsed.then(
    (r) => incoming?.finish(r.headingRuns),
    (e) => incoming?.fail(e),
  );
  const endedFirst = parsed.then(() => {
    if (!incoming) throw new Error("the parse thread sent no chunk count");
    return incoming;
  });
  return { feed: Promise.race([chunkedNow, endedFirst]), parsed };
}
