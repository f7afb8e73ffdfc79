// Saves a streaming answer while it grows, so a server killed mid-answer (kill -9) leaves what was
// said so far. Writes are bounded: the first after `intervalMs` of answering, then at most one per
// `intervalMs`, one at a time, and only when the text changed; a turn that ends sooner writes
// nothing extra (the final save does it all). A timer picks up text that arrived in a quiet gap.
export interface PartialSaverIo {
  /** Inserts the assistant message in its streaming state with the text so far. */
  insert(content: string): Promise<void>;
  update(content: string): Promise<void>;
}

export const PARTIAL_SAVE_INTERVAL_MS = 1000;

export class PartialSaver {
  private inserted = false;
  private startedAt = 0;
  private lastWriteAt = 0;
  private written = "";
  private latest = "";
  private inFlight: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  writes = 0;

  constructor(
    private readonly io: PartialSaverIo,
    private readonly intervalMs = PARTIAL_SAVE_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The whole answer so far, after each delta. */
  note(content: string): void {
    if (this.closed) return;
    this.latest = content;
    const t = this.now();
    if (!this.startedAt) this.startedAt = t;
    const wait = (this.inserted ? this.lastWriteAt : this.startedAt) + this.intervalMs - t;
    if (this.inFlight || wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.note(this.latest);
      }, Math.max(wait, 10));
      this.timer.unref?.();
      return;
    }
    if (content === this.written) return;
    this.lastWriteAt = t;
    this.written = content;
    this.writes++;
    const op = this.inserted ? this.io.update(content) : this.io.insert(content).then(() => void (this.inserted = true));
    this.inFlight = op
      .catch((e) => console.error("[assistant] could not save the partial answer", e))
      .finally(() => {
        this.inFlight = null;
      });
  }

  /** Stops saving; resolves once no write is in flight, with whether the row exists. */
  async settle(): Promise<boolean> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
    return this.inserted;
  }
}
