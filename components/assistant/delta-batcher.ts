// Coalesces many small `delta` events into one state update per animation frame, so 2,000
// deltas cause at most one render per frame instead of 2,000 renders (issue 6 benchmark).

export type Scheduler = (cb: () => void) => void;

export function defaultScheduler(cb: () => void): void {
  // rAF does not fire in a hidden tab; the stream keeps running there (openWhenHidden), so
  // fall back to a timer to keep the buffer from growing until the tab is shown again.
  if (typeof document !== "undefined" && document.visibilityState === "hidden") {
    setTimeout(cb, 100);
  } else if (typeof requestAnimationFrame === "function") {
    requestAnimationFrame(cb);
  } else {
    setTimeout(cb, 16);
  }
}

export interface DeltaBatcher {
  push(text: string): void;
  /** Writes out anything buffered now (call before terminal events to keep order). */
  flush(): void;
  /** Drops the buffer without writing (after an abort has been handled). */
  cancel(): void;
}

export function createDeltaBatcher(onFlush: (text: string) => void, schedule: Scheduler = defaultScheduler): DeltaBatcher {
  let buffer = "";
  let scheduled = false;
  let cancelled = false;
  const run = () => {
    scheduled = false;
    if (cancelled || !buffer) return;
    const text = buffer;
    buffer = "";
    onFlush(text);
  };
  return {
    push(text) {
      if (cancelled || !text) return;
      buffer += text;
      if (!scheduled) {
        scheduled = true;
        schedule(run);
      }
    },
    flush: run,
    cancel() {
      cancelled = true;
      buffer = "";
    },
  };
}
