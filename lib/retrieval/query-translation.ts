import "server-only";
// Cross-language questions (issue 21): lexical retrieval matches words, so a Chinese question on
// English documents finds nothing ("Zephyr 的发布日期是哪天？" → NO_RELEVANT_CONTEXT while "When
// does Zephyr launch?" works). When a chat model is configured and the question's language is
// none of the searchable files' languages (recorded at ingestion), the question is translated
// into each of those languages (at most MAX_TARGET_LANGUAGES, most files first) and searched in
// every language; each hit keeps its best score. Without a chat model nothing is translated and
// the original question is searched as before.
import type { RawDb } from "@/lib/db/client";
import { completeChat, thinkingOffExtras } from "@/lib/models/chat";
import type { ChatModelConfig } from "@/lib/models/config";
import { detectLanguage, LANGUAGE_NAMES, TEXT_LANGUAGES, type TextLanguage } from "./text/language";

export const MAX_TARGET_LANGUAGES = 2;
/** A translation is a short query; longer output is cut (a model that answers instead). */
const MAX_TRANSLATION_CHARS = 300;

export interface QueryTranslation {
  language: TextLanguage;
  query: string;
}

export interface TranslationPlan {
  /** The question's own language (null: not detected, nothing is translated). */
  from: TextLanguage | null;
  /** The languages of the searched files, most files first. */
  documentLanguages: TextLanguage[];
  /** The languages the question must be translated into (empty: it shares one with the files). */
  targets: TextLanguage[];
}

/** Languages of the searchable files of these KBs (and files, when filtered), most files first. */
export async function documentLanguages(
  db: Pick<RawDb, "$queryRawUnsafe">,
  knowledgeIds: string[],
  fileIds: string[] | null,
): Promise<TextLanguage[]> {
  if (!knowledgeIds.length) return [];
  const rows = await db.$queryRawUnsafe<{ language: string; n: number }[]>(
    `SELECT language, count(*)::int AS n FROM knowledge_files
     WHERE knowledge_id = ANY($1::text[]) AND status = 'success' AND language IS NOT NULL
       AND ($2::text[] IS NULL OR id = ANY($2::text[]))
     GROUP BY language ORDER BY n DESC, language`,
    knowledgeIds,
    fileIds,
  );
  return rows.map((r) => r.language).filter((l): l is TextLanguage => (TEXT_LANGUAGES as readonly string[]).includes(l));
}

export function planTranslation(question: string, docLanguages: TextLanguage[]): TranslationPlan {
  const from = detectLanguage(question);
  const targets = from && docLanguages.length && !docLanguages.includes(from) ? docLanguages.slice(0, MAX_TARGET_LANGUAGES) : [];
  return { from, documentLanguages: docLanguages, targets };
}

export function buildTranslationMessages(question: string, target: TextLanguage) {
  return [
    {
      role: "system" as const,
      content:
        `Translate the user's question into ${LANGUAGE_NAMES[target]} for a keyword search over ${LANGUAGE_NAMES[target]} documents. ` +
        "Do not answer it. Keep names, product names, IDs, numbers and file names exactly as written. Output only the translated question, on one line.",
    },
    { role: "user" as const, content: question },
  ];
}

/** One translation through the configured chat model; throws the model client's errors. */
export async function translateQuery(chat: ChatModelConfig, question: string, target: TextLanguage, signal: AbortSignal): Promise<string> {
  const res = await completeChat({
    baseUrl: chat.baseUrl,
    apiKey: chat.apiKey,
    model: chat.model,
    messages: buildTranslationMessages(question, target),
    temperature: 0,
    maxTokens: 200,
    signal,
    extraBody: thinkingOffExtras(chat.model, chat.baseUrl),
    timeoutMs: chat.timeoutMs,
  });
  const line = res.text.split("\n").map((s) => s.trim()).find(Boolean) ?? "";
  return [...line].slice(0, MAX_TRANSLATION_CHARS).join("");
}
