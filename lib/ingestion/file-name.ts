// Display-name normalization for uploaded files (SPEC §12). The result is only ever shown to
// people (and escaped wherever it is rendered); it is never used to build a storage path —
// originals live under generated ids (storage.ts).

export const MAX_DISPLAY_NAME_CHARS = 200;
const FALLBACK_NAME = "untitled";

// C0/C1 controls, DEL, bidi embeddings/overrides/isolates (U+202A–202E, U+2066–2069), the
// implicit marks LRM/RLM/ALM, zero-width and BOM characters, line/paragraph separators.
const STRIP = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\u061c\u2028\u2029\ufeff\ufff9-\ufffb]/g;

function lastPathPart(name: string): string {
  const parts = name.split(/[\\/]+/);
  // "dir/" → the last non-empty part; a bare "/" → "".
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i]!.trim();
    if (p) return p;
  }
  return "";
}

/** Cut to at most `max` code points without splitting a surrogate pair. */
function cutCodePoints(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max).join("");
}

/** The extension (lower case, without the dot) of a display name, or "". */
export function fileExtension(name: string): string {
  const base = lastPathPart(name);
  const dot = base.lastIndexOf(".");
  if (dot <= 0 || dot === base.length - 1) return "";
  const ext = base.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : "";
}

/**
 * Normalize a client-supplied file name for display: drop any path (both separators), control
 * and bidi-override characters; NFC; collapse whitespace; trim (also leading/trailing dots);
 * bound the length while keeping the extension. Never returns an empty string.
 */
export function normalizeDisplayName(raw: string | null | undefined, max = MAX_DISPLAY_NAME_CHARS): string {
  let s = String(raw ?? "");
  // Line breaks and tabs separate words: they become spaces; other invisible characters go.
  s = s.normalize("NFC").replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, " ").replace(STRIP, "");
  s = lastPathPart(s);
  s = s.replace(/\s+/g, " ").trim();
  // Leading dots would make ".." or hidden-looking names; trailing dots/spaces are dropped by
  // some file systems when a user downloads the original again.
  s = s.replace(/^[.\s]+/, "").replace(/[.\s]+$/, "");
  if (!s) return FALLBACK_NAME;
  if (Array.from(s).length <= max) return s;
  const ext = fileExtension(s);
  if (ext && ext.length + 2 < max) {
    const stem = s.slice(0, s.length - ext.length - 1);
    return `${cutCodePoints(stem, max - ext.length - 2).trimEnd()}….${ext}`;
  }
  return cutCodePoints(s, max);
}
