// `[n]` markers in a streamed answer must point at a reference (SPEC §5). This filter runs on
// the delta stream: it holds back a possible marker split across deltas, keeps markers whose
// numbers are known, and removes (and counts) the rest.
const MAX_MARKER_LEN = 16;

export class MarkerFilter {
  private pending = "";
  removed = 0;
  constructor(private readonly valid: (n: number) => boolean) {}

  push(text: string): string {
    this.pending += text;
    let out = "";
    for (;;) {
      const open = this.pending.indexOf("[");
      if (open === -1) {
        out += this.pending;
        this.pending = "";
        return out;
      }
      out += this.pending.slice(0, open);
      this.pending = this.pending.slice(open);
      const close = this.pending.indexOf("]");
      if (close === -1) {
        // Could still become a marker: wait for more text, unless it clearly is not one.
        if (this.pending.length < MAX_MARKER_LEN && /^\[[\d,\s，]*$/.test(this.pending)) return out;
        out += "[";
        this.pending = this.pending.slice(1);
        continue;
      }
      const inner = this.pending.slice(1, close);
      if (/^\s*\d+(\s*[,，]\s*\d+)*\s*$/.test(inner)) {
        const nums = inner.split(/[,，]/).map((s) => Number.parseInt(s.trim(), 10));
        const kept = nums.filter((n) => this.valid(n));
        this.removed += nums.length - kept.length;
        out += kept.map((n) => `[${n}]`).join("");
        this.pending = this.pending.slice(close + 1);
      } else {
        out += "[";
        this.pending = this.pending.slice(1);
      }
    }
  }

  flush(): string {
    const rest = this.pending;
    this.pending = "";
    // An unterminated "[12" at the very end is not a marker; keep it as text.
    return rest;
  }
}

/** The marker numbers an answer cites, in order of first appearance. */
export function citedIndexes(answer: string): number[] {
  const seen = new Set<number>();
  for (const m of answer.matchAll(/\[(\d+)\]/g)) seen.add(Number(m[1]));
  return [...seen];
}
