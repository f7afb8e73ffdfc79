// Lexical tokenizer shared by indexing, querying and the benchmark (pure: no "server-only", so
// scripts and tests use it directly). Chinese is segmented with jieba after Traditional →
// Simplified conversion; other scripts are split on letter/number runs, lowercased, stop words
// removed and English Porter-stemmed. Numbers are kept; punctuation is dropped.
import { createRequire } from "node:module";
import type { Jieba as JiebaType } from "@node-rs/jieba";
import * as OpenCC from "opencc-js";
import { stemmer } from "stemmer";
import { CHINESE_QUESTION_PAIRS, CHINESE_STOP_WORDS, ENGLISH_STOP_WORDS } from "./stopwords";

export interface TokenizeOptions {
  /** jieba search mode: also emit the dictionary words inside long words (中华人民共和国 → 中华, 人民, 共和国 …). */
  searchMode?: boolean;
  /** Also emit character bigrams of each Chinese word longer than two characters. */
  cjkBigrams?: boolean;
}

/** The settings the index and the queries use (chosen on the benchmarks; see docs/benchmarks-retrieval.md). */
export const DEFAULT_TOKENIZE_OPTIONS: Required<TokenizeOptions> = { searchMode: true, cjkBigrams: false };

// Han ideographs (basic, ext A, compatibility) — the text jieba should see.
const CJK_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const CJK_ONLY_RE = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+$/;
// Runs of letters/digits (any script) with an optional decimal/version tail such as 3.5 or 2.0.1.
export const WORD_RE = /\p{N}+(?:[.,]\p{N}+)*|[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?/gu;
const MAX_TOKEN_CHARS = 64;

// The dictionaries live on globalThis: Next bundles this module into several chunks (the
// ingestion runner's, each route's), each a module instance of its own, and every instance built
// its own jieba dictionary: another ~100–180 ms, paid by the first question after a start, and the
// dictionary's memory again.
const g = globalThis as unknown as { __kaJieba?: JiebaType; __kaT2s?: (s: string) => string };

function getJieba(): JiebaType {
  if (!g.__kaJieba) {
    const require = createRequire(import.meta.url);
    const { Jieba } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { dict } = require("@node-rs/jieba/dict") as typeof import("@node-rs/jieba/dict");
    g.__kaJieba = Jieba.withDict(dict);
  }
  return g.__kaJieba;
}

function toSimplified(s: string): string {
  // Character-level Traditional (Taiwan/HK variants included) → Simplified; identity on Simplified.
  g.__kaT2s ??= OpenCC.Converter({ from: "tw", to: "cn" });
  return g.__kaT2s(s);
}

/** Traditional → Simplified (character level; identity on Simplified and on other scripts). */
export function simplifyChinese(s: string): string {
  return toSimplified(s);
}

/** Builds the dictionaries now (at server start) instead of on the first text that needs them. */
export function loadTokenizer(): void {
  getJieba();
  toSimplified("");
}

const stemCache = new Map<string, string>();
function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stemCache.size > 200_000) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

function pushWordRuns(piece: string, out: string[]): void {
  for (const m of piece.matchAll(WORD_RE)) {
    let w = m[0].replace(/’/g, "'");
    if (ENGLISH_STOP_WORDS.has(w)) continue;
    if (/^[a-z][a-z']*$/.test(w)) {
      w = w.replace(/'s$/, "").replace(/'/g, "");
      if (!w || ENGLISH_STOP_WORDS.has(w)) continue;
      w = stem(w);
    }
    if (w.length > MAX_TOKEN_CHARS) w = w.slice(0, MAX_TOKEN_CHARS);
    out.push(w);
  }
}

function pushCjk(word: string, out: string[], opts: Required<TokenizeOptions>): void {
  if (CHINESE_STOP_WORDS.has(word)) return;
  out.push(word);
  if (opts.cjkBigrams && word.length > 2) {
    for (let i = 0; i + 2 <= word.length; i++) out.push(word.slice(i, i + 2));
  }
}

/**
 * Text → index/query terms. Same function for documents and queries, so terms always match.
 * Deterministic; never throws on any string.
 */
export function tokenize(text: string, options?: TokenizeOptions): string[] {
  const opts = options ? { ...DEFAULT_TOKENIZE_OPTIONS, ...options } : DEFAULT_TOKENIZE_OPTIONS;
  if (!text) return [];
  // NFKC folds full-width letters/digits (ＡＢＣ１２３) and compatibility forms; then lowercase.
  const norm = text.normalize("NFKC").toLowerCase();
  const out: string[] = [];
  if (!CJK_RE.test(norm)) {
    pushWordRuns(norm, out);
    return out;
  }
  const simplified = toSimplified(norm);
  const j = getJieba();
  const pieces = opts.searchMode ? j.cutForSearch(simplified, true) : j.cut(simplified, true);
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const pair = CHINESE_QUESTION_PAIRS.get(piece);
    if (pair && pair.has(pieces[i + 1] ?? "")) {
      i++; // "多" + "大" etc.: a question word split in two
      continue;
    }
    if (CJK_ONLY_RE.test(piece)) pushCjk(piece, out, opts);
    else if (CJK_RE.test(piece)) {
      // Mixed piece (rare): split Han runs from the rest.
      for (const m of piece.matchAll(/[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g)) {
        if (CJK_ONLY_RE.test(m[0])) pushCjk(m[0], out, opts);
        else pushWordRuns(m[0], out);
      }
    } else pushWordRuns(piece, out);
  }
  return out;
}

/** term → term frequency, in first-seen order. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}
