import "server-only";
// "Generate questions from this KB" (issue 21): with a chat model configured, passages are
// sampled from the KB's searchable files and the model writes one question each passage
// answers. The draft links every question to its passage (chunk id, file, page, the passage's
// opening as expected text) and is returned for the owner to edit and save; nothing is stored.
import { getRawDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { completeChat, thinkingOffExtras } from "@/lib/models/chat";
import { getModelConfig } from "@/lib/models/config";
import type { DraftQuestion } from "./wire-types";

export type { DraftQuestion } from "./wire-types";

export const MAX_GENERATED = 30;
/** The passage's opening kept as the expected text: enough to identify it, short enough to edit. */
const EXPECTED_CHARS = 300;
/** Passages shorter than this rarely answer a question. */
const MIN_PASSAGE_CHARS = 80;

export const QUESTION_WRITER_PROMPT =
  "You write evaluation questions for a knowledge base. Write one question that the passage below answers, " +
  "in the passage's language, specific enough that this passage is the place to find the answer. Output only the question, on one line.";

export async function draftQuestions(knowledgeId: string, count: number, signal: AbortSignal): Promise<DraftQuestion[]> {
  const chat = getModelConfig().chat;
  if (!chat) throw new AppError("MODEL_UNAVAILABLE", "Generating questions needs a chat model (AI_CHAT_MODEL).");
  const raw = await getRawDb();
  const passages = await raw.$queryRawUnsafe<{ id: string; content: string; page_start: number | null; name: string }[]>(
    `SELECT c.id, c.content, c.page_start, f.name FROM chunks c JOIN knowledge_files f ON f.id = c.file_id
     WHERE c.knowledge_id = $1 AND f.status = 'success' AND length(c.content) >= $2
     ORDER BY random() LIMIT $3`,
    knowledgeId,
    MIN_PASSAGE_CHARS,
    Math.min(count, MAX_GENERATED),
  );
  if (passages.length === 0) throw new AppError("KNOWLEDGE_NOT_READY");
  const out: DraftQuestion[] = [];
  // One at a time: a slow model keeps one connection, and a cancelled request stops at once.
  for (const p of passages) {
    const res = await completeChat({
      baseUrl: chat.baseUrl,
      apiKey: chat.apiKey,
      model: chat.model,
      messages: [
        { role: "system", content: QUESTION_WRITER_PROMPT },
        { role: "user", content: `Passage:\n${p.content}` },
      ],
      temperature: 0.3,
      maxTokens: 120,
      signal,
      extraBody: thinkingOffExtras(chat.model, chat.baseUrl),
      timeoutMs: chat.timeoutMs,
    });
    const question = (res.text.split("\n").map((s) => s.trim()).find(Boolean) ?? "").replace(/\u0000/g, "").slice(0, 500);
    if (!question) continue;
    out.push({
      question,
      expected_file: p.name,
      expected_page: p.page_start,
      expected_text: [...p.content].slice(0, EXPECTED_CHARS).join("").trim(),
      unanswerable: false,
      chunk_id: p.id,
      passage: p.content,
    });
  }
  return out;
}
