// Coalesces a model's token deltas into fewer SSE events. Each event costs the server a pass
// through the response pipeline and a socket write (under `next start` also web-stream piping
// and async hooks); a model streaming every 20 ms across 50 streams is 2,500 writes a second.
// The first delta goes out at once (time to first text is what users feel); later ones wait at
// most `windowMs`, well under what reading can notice.

export const DELTA_WINDOW_MS = 40;

export class DeltaBatcher {
  private pending = "";
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sentFirst = false;

  constructor(
    private readonly send: (text: string) => void,
    private readonly windowMs = DELTA_WINDOW_MS,
  ) {}

  push(text: string): void {
    if (!text) return;
    if (!this.sentFirst) {
      this.sentFirst = true;
      this.send(text);
      return;
    }
    this.pending += text;
    this.timer ??= setTimeout(() => this.flush(), this.windowMs);
  }

  /** Sends what is pending now (end of the answer, an error, a disconnect). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending) return;
    const text = this.pending;
    this.pending = "";
    this.send(text);
  }
}
