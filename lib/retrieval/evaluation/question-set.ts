// Question sets of the KB evaluation (issue 21): parsing an uploaded CSV or JSONL file and
// checking each question. A malformed row is reported with its line number and left out; the
// rest of the set still runs. Size is bounded before anything is parsed (bytes) and while
// parsing (question count), so a 10,000-question set costs a few MB at most.
import { parse } from "csv-parse/sync";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { EvalQuestion, RowError } from "./wire-types";

export const MAX_SET_QUESTIONS = 10_000;
/** The uploaded text (CSV or JSONL) at most; 10,000 questions with passages fit well below it. */
export const MAX_SET_BYTES = 8 * 1024 * 1024;
export const MAX_QUESTION_CHARS = 2000;
export const MAX_EXPECTED_TEXT_CHARS = 4000;
/** Parse errors kept per set (the count is kept in full). */
export const MAX_REPORTED_ERRORS = 200;

export type { EvalQuestion, RowError } from "./wire-types";

export interface ParsedSet {
  questions: EvalQuestion[];
  errors: RowError[];
  errorCount: number;
}

const noNul = (s: string) => !s.includes("\u0000");
const optText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine(noNul, "must not contain NUL characters")
    .transform((s) => s.trim() || null)
    .nullable()
    .default(null);

/** One question as stored, sent by the page editor and read from JSONL lines. */
export const questionSchema = z
  .object({
    question: z
      .string({ error: "question must be a string" })
      .refine(noNul, "must not contain NUL characters")
      .transform((s) => s.trim())
      .refine((s) => s.length > 0, "question is empty")
      .refine((s) => [...s].length <= MAX_QUESTION_CHARS, `question is longer than ${MAX_QUESTION_CHARS} characters`),
    expected_file: optText(255),
    expected_page: z.number().int().min(1).max(1_000_000).nullable().default(null),
    expected_text: optText(MAX_EXPECTED_TEXT_CHARS),
    unanswerable: z.boolean().default(false),
    chunk_id: z.string().max(64).regex(/^[A-Za-z0-9_-]+$/).nullable().default(null),
  })
  .strict()
  .refine((q) => q.unanswerable || q.expected_file !== null || q.expected_page !== null || q.expected_text !== null, {
    message: "an answerable question needs an expected file, page or passage text",
  });

/** Column names accepted in a CSV header (first name is the canonical one). */
const COLUMN_ALIASES: Record<keyof Omit<EvalQuestion, "chunk_id">, string[]> = {
  question: ["question", "query", "问题"],
  expected_file: ["expected_file", "file", "file_name", "文件"],
  expected_page: ["expected_page", "page", "页码"],
  expected_text: ["expected_text", "passage", "expected_passage", "text", "段落"],
  unanswerable: ["unanswerable", "should_not_answer", "not_answerable", "不应回答"],
};

const TRUE_WORDS = new Set(["1", "true", "yes", "y", "是", "x"]);
const FALSE_WORDS = new Set(["", "0", "false", "no", "n", "否"]);

function issueText(e: z.ZodError): string {
  return e.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}

class Collector {
  readonly questions: EvalQuestion[] = [];
  readonly errors: RowError[] = [];
  errorCount = 0;
  fail(line: number, message: string) {
    this.errorCount++;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ line, message });
  }
  add(line: number, raw: unknown) {
    const r = questionSchema.safeParse(raw);
    if (!r.success) return this.fail(line, issueText(r.error));
    if (this.questions.length >= MAX_SET_QUESTIONS) throw new AppError("QUESTION_SET_TOO_LARGE", `A question set holds at most ${MAX_SET_QUESTIONS} questions.`);
    this.questions.push(r.data);
  }
  result(): ParsedSet {
    // csv-parse reports unreadable records before the readable ones are checked: by line.
    return { questions: this.questions, errors: [...this.errors].sort((a, b) => a.line - b.line), errorCount: this.errorCount };
  }
}

function checkSize(text: string) {
  if (Buffer.byteLength(text, "utf8") > MAX_SET_BYTES) throw new AppError("QUESTION_SET_TOO_LARGE", `A question set file is at most ${MAX_SET_BYTES / 1024 / 1024} MB.`);
  if (text.includes("\u0000")) throw new AppError("INVALID_PARAMS", "The file must not contain NUL characters.");
}

/** JSONL: one JSON object per line with the fields of `questionSchema`; blank lines are skipped. */
export function parseJsonl(text: string): ParsedSet {
  checkSize(text);
  const out = new Collector();
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((l, i) => {
    if (!l.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(l);
    } catch {
      return out.fail(i + 1, "not valid JSON");
    }
    out.add(i + 1, raw);
  });
  return out.result();
}

/**
 * CSV with a header row naming the columns (`question` required; `expected_file`,
 * `expected_page`, `expected_text`, `unanswerable` or their aliases). csv-parse reports the line
 * of a record it cannot read (an unclosed quote, a wrong column count) and goes on.
 */
export function parseCsv(text: string): ParsedSet {
  checkSize(text);
  const out = new Collector();
  let header: (keyof Omit<EvalQuestion, "chunk_id"> | null)[] | null = null;
  const records = parse(text, {
    bom: true,
    skip_empty_lines: true,
    relax_column_count: false,
    skip_records_with_error: true,
    info: true,
    trim: true,
    on_skip: (err) => {
      const line = (err as { lines?: number } | undefined)?.lines;
      out.fail(typeof line === "number" ? line : 0, `unreadable CSV row: ${err?.message ?? "parse error"}`);
    },
  }) as unknown as { record: string[]; info: { lines: number } }[];
  for (const { record, info } of records) {
    if (!header) {
      header = record.map((name) => {
        const n = name.trim().toLowerCase();
        const hit = (Object.entries(COLUMN_ALIASES) as [keyof typeof COLUMN_ALIASES, string[]][]).find(([, names]) => names.includes(n));
        return hit ? hit[0] : null;
      });
      if (!header.includes("question")) throw new AppError("QUESTION_SET_INVALID", "The CSV header must name a `question` column (and expected_file, expected_page, expected_text, unanswerable).");
      continue;
    }
    const raw: Record<string, unknown> = {};
    let bad: string | null = null;
    header.forEach((col, i) => {
      if (!col) return;
      const v = record[i] ?? "";
      if (col === "expected_page") {
        if (v === "") raw[col] = null;
        else if (/^\d+$/.test(v)) raw[col] = Number(v);
        else bad = `expected_page: "${v.slice(0, 40)}" is not a page number`;
      } else if (col === "unanswerable") {
        const w = v.toLowerCase();
        if (TRUE_WORDS.has(w)) raw[col] = true;
        else if (FALSE_WORDS.has(w)) raw[col] = false;
        else bad = `unanswerable: "${v.slice(0, 40)}" is not yes/no`;
      } else raw[col] = v;
    });
    if (bad) out.fail(info.lines, bad);
    else out.add(info.lines, raw);
  }
  return out.result();
}

export function parseQuestionSet(format: "csv" | "jsonl", text: string): ParsedSet {
  return format === "csv" ? parseCsv(text) : parseJsonl(text);
}
