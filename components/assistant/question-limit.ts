// Composer length rules (SPEC §5/§11): the UI limits questions to 200 characters. We count in
// code points so an emoji or a rare CJK character (a surrogate pair) counts as one character,
// which is what a person counting characters expects.

export const DEFAULT_MAX_QUESTION_LENGTH = 200;

export function countChars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function clampQuestion(text: string, max: number): { text: string; truncated: boolean } {
  if (countChars(text) <= max) return { text, truncated: false };
  return { text: Array.from(text).slice(0, max).join(""), truncated: true };
}

export type CounterTone = "normal" | "warn" | "limit";

export function counterTone(count: number, max: number): CounterTone {
  if (count >= max) return "limit";
  if (count >= Math.floor(max * 0.9)) return "warn";
  return "normal";
}

/** A question can be sent when it has visible content and fits the limit. */
export function canSendQuestion(text: string, max: number): boolean {
  const trimmed = text.trim();
  return trimmed.length > 0 && countChars(trimmed) <= max;
}

/**
 * Whether an Enter keydown should send. Enter during an IME composition (Chinese input
 * confirming a candidate) must never send: browsers report it via isComposing, and some
 * (Safari, older Chrome) only via the legacy keyCode 229.
 */
export function isSendKey(e: { key: string; shiftKey: boolean; isComposing?: boolean; keyCode?: number }, composing = false): boolean {
  if (e.key !== "Enter") return false;
  if (e.shiftKey) return false;
  if (composing || e.isComposing || e.keyCode === 229) return false;
  return true;
}
