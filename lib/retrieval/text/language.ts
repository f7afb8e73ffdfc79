// Language of a text, as far as retrieval needs it (pure; shared by ingestion and the query side).
// Lexical retrieval can only match a question to documents written in the same language, so the
// app records each file's language at ingestion and, with a chat model configured, translates a
// question whose language no searchable file shares (lib/retrieval/query-translation.ts). What
// matters is the script and, for Latin script, whether it is English (the only Latin-script
// language the tokenizer stems); a general language identifier would answer questions we never ask.
import { ENGLISH_STOP_WORDS } from "./stopwords";

/** Languages the app can tell apart; null = not enough text, or a language none of these is. */
export type TextLanguage = "zh" | "en" | "ja" | "ko";
export const TEXT_LANGUAGES: readonly TextLanguage[] = ["zh", "en", "ja", "ko"];

export const LANGUAGE_NAMES: Record<TextLanguage, string> = { zh: "Chinese", en: "English", ja: "Japanese", ko: "Korean" };

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/gu;
const KANA = /[\u3040-\u30ff]/gu;
const HANGUL = /[\uac00-\ud7af\u1100-\u11ff]/gu;
const LATIN_WORD = /\b[a-z]+(?:'[a-z]+)?\b/gu;

/** How much of a long document is looked at (its beginning, middle and end). */
const SAMPLE_CHARS = 20_000;

function sample(text: string): string {
  if (text.length <= SAMPLE_CHARS) return text;
  const third = Math.floor(SAMPLE_CHARS / 3);
  const mid = Math.floor(text.length / 2);
  return text.slice(0, third) + " " + text.slice(mid - third / 2, mid + third / 2) + " " + text.slice(-third);
}

/**
 * The dominant language of `text`. Han, kana and hangul characters count one each, a Latin word
 * counts its letters / 2 (a Chinese word is ~2 characters, an English word ~5 letters carry about
 * the same meaning); Latin text is English when at least 20 % of its words are English function
 * words (ordinary English prose: 40–50 %; French or German with English loanwords: < 10 %).
 */
export function detectLanguage(text: string): TextLanguage | null {
  const s = sample(text.normalize("NFKC")).toLowerCase();
  const han = s.match(HAN)?.length ?? 0;
  const kana = s.match(KANA)?.length ?? 0;
  const hangul = s.match(HANGUL)?.length ?? 0;
  const words = s.match(LATIN_WORD) ?? [];
  const latin = words.reduce((n, w) => n + w.length, 0) / 2;
  const total = han + kana + hangul + latin;
  if (total < 2) return null;
  if (kana > 0 && kana + han >= total / 2 && kana >= (kana + han) * 0.1) return "ja";
  if (hangul >= total / 2) return "ko";
  if (han >= total / 2) return "zh";
  if (latin >= total / 2) {
    const fn = words.filter((w) => ENGLISH_STOP_WORDS.has(w)).length;
    // A question of two or three words may hold no function word at all ("Zephyr launch date").
    if (words.length <= 4 || fn / words.length >= 0.2) return "en";
  }
  return null;
}

/** The language of a file from its passages (the same rule over their concatenated sample). */
export function detectDocumentLanguage(passages: readonly string[]): TextLanguage | null {
  let text = "";
  for (const p of passages) {
    if (text.length > SAMPLE_CHARS * 3) break;
    text += p + "\n";
  }
  return detectLanguage(text);
}
