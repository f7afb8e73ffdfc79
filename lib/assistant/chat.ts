import "server-only";
import { randomUUID } from "node:crypto";
import type { Principal } from "@/lib/auth/session";
import { getDb, getRawDb, type Db, type RawDb } from "@/lib/db/client";
import { getKnowledgeSummary } from "@/lib/db/knowledges";
import { getEnv } from "@/lib/env";
import { AppError, isAppError, publicMessageOf } from "@/lib/errors";
import { completeChat, streamChat, thinkingOffExtras, type ChatMessage, type ChatUsage } from "@/lib/models/chat";
import { getModelConfig, type ChatModelConfig } from "@/lib/models/config";
import { isAbortError } from "@/lib/models/http";
import { kbOverview } from "@/lib/retrieval/kb-overview";
import { BUILTIN_SOURCE_TYPE } from "@/lib/retrieval/kb-search";
import { chunkPageMarks } from "@/lib/retrieval/page-marks";
import { getRetrievalRuntime } from "@/lib/retrieval/runtime";
import type { RetrievalHit, SourceSummary } from "@/lib/retrieval/types";
import {
  acquireTurn,
  findConversation,
  finishStreamingMessage,
  insertStreamingMessage,
  loadHistory,
  releaseTurn,
  saveMessage,
  startConversationWithQuestion,
  truncateFromQuestion,
  updateStreamingContent,
} from "./conversations";
import { PartialSaver } from "./partial-saver";
import { agentReferences, runAgentLoop, type AgentStep } from "./agent";
import { bindExternalRefs, listExternalRefs, resolveExternalRefs, type ExternalRef } from "./external-refs";
import { DeltaBatcher } from "./delta-batcher";
import { extractAnswer, pieces } from "./engines/extractive";
import { composeOverview, isOverviewQuestion } from "./engines/overview";
import { citedIndexes, MarkerFilter } from "./markers";
import {
  buildCreativeMessages,
  buildGroundedMessages,
  buildRelatedMessages,
  buildRewriteMessages,
  selectContext,
  type ContextBlock,
} from "./prompt";
import { hasCjk, toReferences, type ReferenceItem } from "./references";
import { candidatesFromHits, checkRelated, parseRelated, type RelatedCheck } from "./related";
import { createSseStream, type SseWriter } from "./sse-writer";
import { assertAcceptingTurns, isShutdownAbort, trackTurn } from "./turn-registry";

export type AnswerMode = "grounded" | "references_only" | "creative" | "agent";

export interface ChatInput {
  message: string;
  top_k: number;
  file_ids: string[] | null;
  conversation_id: string | null;
  history_limit: number;
  answer_mode: AnswerMode;
  use_query_rewrite: boolean;
  min_score: number | null;
  external_knowledge_refs: ExternalRef[];
  /** Edit and resend / regenerate: the question from which the conversation is replaced. */
  replace_from_message_id?: string | null;
}

export const MAX_MESSAGE_CHARS = 2000;
const ZERO_USAGE: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
const NO_BASIS_ZH = "当前知识库未检索到足够依据。";

interface Prepared {
  db: Db;
  /** The same database without Prisma's client, for this turn's hot raw statements. */
  raw: RawDb;
  principal: Principal;
  knowledgeId: string;
  input: ChatInput;
  question: string;
  conversationId: string;
  turnId: string;
  userMessageId: string;
  assistantMessageId: string;
  readable: Set<string>;
  /** A new conversation has no history and no bindings yet: skip those reads. */
  isNew: boolean;
  hasExternalRefs: boolean;
}

/**
 * Everything that can fail before the stream opens (SPEC §5 validation, access, KB state,
 * conversation ownership and the one-turn-at-a-time lease) throws AppError here, so the route
 * answers with the JSON envelope. The user message is saved before any streaming.
 */
export async function prepareChatTurn(principal: Principal, knowledgeId: string, input: ChatInput): Promise<Prepared> {
  assertAcceptingTurns(); // this instance is stopping (SIGTERM): ask another one
  const [db, raw] = await Promise.all([getDb(), getRawDb()]);
  const question = input.message.trim();
  if (question.length === 0) throw new AppError("MESSAGE_EMPTY");
  if ([...question].length > MAX_MESSAGE_CHARS) throw new AppError("MESSAGE_TOO_LONG", `The question is longer than ${MAX_MESSAGE_CHARS} characters.`);

  // One query answers membership (KNOWLEDGE_NOT_FOUND for non-members), assistant access and
  // the file counts; every role may read.
  const kb = await getKnowledgeSummary(raw, principal.user.id, knowledgeId);
  if (!kb.assistant_enabled) throw new AppError("FORBIDDEN", "The assistant is not enabled for you on this knowledge base.");
  if (kb.file_count === 0) throw new AppError("KNOWLEDGE_EMPTY");
  if (kb.ready_file_count === 0) throw new AppError("KNOWLEDGE_NOT_READY");
  if (input.answer_mode === "agent") assertAgentModeAvailable();

  if (input.file_ids && input.file_ids.length > 0) {
    const ids = [...new Set(input.file_ids)];
    const files = await db.knowledgeFile.findMany({ where: { id: { in: ids }, knowledgeId }, select: { id: true, status: true } });
    // Ids outside this KB all answer the same way, whether they exist elsewhere or not.
    if (files.length !== ids.length) throw new AppError("FILE_NOT_IN_KNOWLEDGE");
    const notReady = files.find((f) => f.status !== "success");
    if (notReady) throw new AppError("FILE_NOT_SEARCHABLE", `File ${notReady.id} is not searchable yet.`);
  }

  // Validated by their providers before anything of the turn is stored (seed 002).
  const refs = input.external_knowledge_refs.length ? await resolveExternalRefs(principal.user.id, input.external_knowledge_refs) : [];

  const turnId = randomUUID();
  let conversationId: string;
  let userMessageId: string;
  const isNew = !input.conversation_id;
  if (input.conversation_id) {
    conversationId = (await findConversation(db, principal.user.id, knowledgeId, input.conversation_id)).id;
    await acquireTurn(db, conversationId, turnId);
    try {
      if (input.replace_from_message_id) await truncateFromQuestion(raw, conversationId, input.replace_from_message_id);
      userMessageId = await saveMessage(raw, { conversationId, role: "user", content: question });
    } catch (e) {
      await releaseTurn(db, conversationId, turnId);
      throw e;
    }
  } else {
    ({ conversationId, userMessageId } = await startConversationWithQuestion(raw, {
      userId: principal.user.id,
      knowledgeId,
      question,
      turnId,
    }));
  }
  if (input.external_knowledge_refs.length > 0) {
    try {
      await bindExternalRefs(db, conversationId, refs);
    } catch (e) {
      await releaseTurn(db, conversationId, turnId);
      throw e;
    }
  }
  return {
    db,
    raw,
    principal,
    knowledgeId,
    input,
    question,
    conversationId,
    turnId,
    userMessageId,
    assistantMessageId: randomUUID(),
    // The access target of this turn: the one KB whose read access was just checked.
    readable: new Set([knowledgeId]),
    isNew,
    hasExternalRefs: !isNew || input.external_knowledge_refs.length > 0,
  };
}

/** Agent mode needs a chat model that takes OpenAI tools; never a silent downgrade (issue 17). */
function assertAgentModeAvailable(): void {
  if (!getModelConfig().chat) throw new AppError("MODEL_UNAVAILABLE", "Agent mode needs a chat model (AI_CHAT_MODEL), and none is configured.");
  if (!getEnv().AI_CHAT_TOOLS) throw new AppError("MODEL_NO_TOOL_SUPPORT");
}

interface TurnOutcome {
  content: string;
  references: ReferenceItem[];
  usage: ChatUsage;
  finishReason: string;
  engine: string;
  metadata: Record<string, unknown>;
}

/** Runs the streamed part of a turn. The returned stream is the SSE body. */
export function streamChatTurn(p: Prepared, requestSignal: AbortSignal): ReadableStream<Uint8Array> {
  const { stream, writer } = createSseStream();
  // Model and provider calls stop when either the request or the stream itself is cancelled.
  // … and when the server stops (SIGTERM) before the turn ends (turn-registry.ts).
  trackTurn(p.turnId, (shutdown) => runTurn(p, writer, AbortSignal.any([requestSignal, writer.clientGone, shutdown])));
  return stream;
}

async function runTurn(p: Prepared, w: SseWriter, signal: AbortSignal): Promise<void> {
  const env = getEnv();
  const models = getModelConfig();
  const outcome: TurnOutcome = {
    content: "",
    references: [],
    usage: { ...ZERO_USAGE },
    finishReason: "stop",
    engine:
      p.input.answer_mode === "references_only"
        ? "none"
        : p.input.answer_mode === "agent" && models.chat
          ? `agent:${models.chat.model}`
          : models.chat
            ? `model:${models.chat.model}`
            : "extractive",
    metadata: {},
  };
  let terminal: { event: "done" | "error"; data: Record<string, unknown> } | null = null;
  // Holds a model's deltas for up to DELTA_WINDOW_MS; flushed before related questions and
  // before the terminal event on every path.
  let batcher: DeltaBatcher | null = null;
  // Sent with `done`, after the answer is saved: the end of a turn is one socket write.
  let related: string[] = [];
  // The answer so far reaches the database while it streams (a kill -9 keeps it; bounded rate).
  const saver = new PartialSaver({
    insert: (content) =>
      insertStreamingMessage(p.raw, { id: p.assistantMessageId, conversationId: p.conversationId, content, referencesJson: outcome.references, engine: outcome.engine }),
    update: (content) => updateStreamingContent(p.raw, p.assistantMessageId, content),
  });
  try {
    w.send("start", { conversation_id: p.conversationId, message_id: p.assistantMessageId, user_message_id: p.userMessageId });
    const history = p.isNew
      ? []
      : // The question just saved goes into the prompt separately.
        await loadHistory(p.db, p.conversationId, p.input.history_limit, p.userMessageId);

    if (p.input.answer_mode === "agent" && models.chat) {
      batcher = new DeltaBatcher((text) => w.send("delta", { text }));
      const agentBatcher = batcher;
      await answerAsAgent(models.chat, p, history, w, outcome, signal, (text) => {
        outcome.content += text;
        saver.note(outcome.content);
        agentBatcher.push(text);
      });
      agentBatcher.flush();
      signal.throwIfAborted();
      terminal = { event: "done", data: { message_id: p.assistantMessageId, finish_reason: outcome.finishReason, usage: outcome.usage, engine: "agent" } };
      return;
    }

    let query = p.question;
    if (p.input.use_query_rewrite && models.chat) {
      query = await rewriteQuery(models.chat, p.question, history, signal);
      outcome.metadata.rewritten_query = query;
    }
    w.send("retrieval", { status: "searching", query });

    const minScore = p.input.min_score ?? env.RETRIEVAL_MIN_SCORE;
    const externalRefs = p.hasExternalRefs ? await listExternalRefs(p.db, p.conversationId) : [];
    // "What does this KB contain?" without a model: the KB's outline, not a search (overview.ts).
    const overview =
      !models.chat && p.input.answer_mode !== "references_only" && !externalRefs.length && isOverviewQuestion(p.question)
        ? await kbOverview(p.db, p.knowledgeId, p.input.file_ids?.length ? p.input.file_ids : null)
        : [];
    const result = overview.length
      ? { hits: overview.map((o) => o.hit), sources: [{ source_type: BUILTIN_SOURCE_TYPE, status: "ok" as const, count: overview.length }], translation: { status: "skipped" as const } }
      : await getRetrievalRuntime().retrieve(
      {
        query,
        topK: p.input.top_k,
        knowledgeBaseIds: [p.knowledgeId],
        filters: p.input.file_ids?.length ? { fileIds: p.input.file_ids } : null,
      },
      {
        ownerId: p.principal.user.id,
        sessionId: p.principal.sessionId,
        turnId: p.turnId,
        traceId: p.assistantMessageId,
        signal,
        readableKnowledgeIds: p.readable,
      },
      // translate: a question in a language no searchable file shares is also searched translated.
      { minScore, translate: true, externalRefs },
    );
    // The core has applied min_score to every source and kept the best top_k.
    const hits = result.hits;
    outcome.metadata.sources = result.sources;
    const translated = result.translation.status === "ok" ? result.translation.queries : [];
    if (translated.length) outcome.metadata.translated_queries = translated;
    w.send("retrieval", { status: "done", hit_count: hits.length, sources: summarize(result.sources, hits), ...(translated.length ? { translated_queries: translated } : {}) });

    if (hits.length === 0 && p.input.answer_mode === "grounded") {
      outcome.finishReason = "no_context";
      outcome.engine = "none";
      outcome.metadata.error_code = "NO_RELEVANT_CONTEXT";
      terminal = { event: "error", data: { code: "NO_RELEVANT_CONTEXT", message: "未在当前知识库中找到相关内容，请换个说法或上传相关文件。" } };
      return;
    }

    const context = selectContext(hits, {
      maxChunks: env.PROMPT_MAX_CHUNKS,
      charsPerChunk: env.PROMPT_CHUNK_CHARS,
      totalChars: env.PROMPT_MAX_CHUNKS * env.PROMPT_CHUNK_CHARS,
    });
    // The extractive answer is known before it streams: its references quote its sentences.
    const extractive =
      !models.chat && p.input.answer_mode !== "references_only"
        ? overview.length
          ? { text: composeOverview(overview, hasCjk(p.question)), quotes: undefined }
          : extractAnswer(p.question, context)
        : null;
    const marks = await chunkPageMarks(p.db, hits.flatMap((h) => (h.chunkId && h.pageEnd !== h.pageStart ? [h.chunkId] : [])));
    outcome.references = toReferences(hits, extractive?.quotes, marks);
    w.send("references", { items: outcome.references });

    if (p.input.answer_mode !== "references_only") {
      const filter = new MarkerFilter((n) => n >= 1 && n <= outcome.references.length);
      // A model's tokens are coalesced (the extractive answer is already a few large pieces).
      batcher = models.chat ? new DeltaBatcher((text) => w.send("delta", { text })) : null;
      const emit = (text: string) => {
        const clean = filter.push(text);
        if (clean) {
          outcome.content += clean;
          saver.note(outcome.content);
          if (batcher) batcher.push(clean);
          else w.send("delta", { text: clean });
        }
      };
      if (models.chat) {
        await answerWithModel(models.chat, p, history, hits, context, emit, outcome, signal);
      } else {
        answerExtractively(context, extractive?.text ?? "", emit);
      }
      batcher?.flush();
      const tail = filter.flush();
      if (tail) {
        outcome.content += tail;
        w.send("delta", { text: tail });
      }
      outcome.metadata.removed_markers = filter.removed;
      // Each candidate is asked of retrieval like this turn's question (same KB, files, min_score).
      const ask = async (q: string) => ({
        hits: (
          await getRetrievalRuntime().retrieve(
            { query: q, topK: 3, knowledgeBaseIds: [p.knowledgeId], filters: p.input.file_ids?.length ? { fileIds: p.input.file_ids } : null },
            { ownerId: p.principal.user.id, sessionId: p.principal.sessionId, turnId: p.turnId, traceId: p.assistantMessageId, signal, readableKnowledgeIds: p.readable },
            { minScore },
          )
        ).hits,
      });
      // The passages this answer cites: a suggestion whose best passage is one of them repeats it.
      const cited = new Set(citedIndexes(outcome.content));
      const answered = new Set(context.filter((b) => cited.has(b.index)).map((b) => b.hit.chunkId ?? b.hit.id));
      related = await relatedQuestions(models.chat, p.question, hits, context, answered, ask, signal);
    }
    signal.throwIfAborted();
    terminal = {
      event: "done",
      data: {
        message_id: p.assistantMessageId,
        finish_reason: outcome.finishReason,
        usage: outcome.usage,
        engine: outcome.engine.startsWith("model:") ? "model" : outcome.engine,
      },
    };
  } catch (e) {
    if (isShutdownAbort(signal)) {
      // The client is still there: tell it why the answer stops here.
      outcome.finishReason = "aborted";
      outcome.metadata.error_code = "SERVER_STOPPING";
      terminal = { event: "error", data: { code: "SERVER_STOPPING", message: (signal.reason as Error).message } };
    } else if (signal.aborted || isAbortError(e)) {
      outcome.finishReason = "aborted";
    } else {
      const code = isAppError(e) ? e.code : "INTERNAL_ERROR";
      if (!isAppError(e)) console.error("[assistant] turn failed", e);
      outcome.finishReason = "error";
      outcome.metadata.error_code = code;
      terminal = { event: "error", data: { code, message: isAppError(e) ? publicMessageOf(e, "[assistant]") : "Something went wrong on our side." } };
    }
  } finally {
    batcher?.flush();
    // Saved before the terminal event, so a client that reads `done`/`error` and then lists the
    // messages always finds the answer.
    const rowExists = await saver.settle();
    await persistOutcome(p, outcome, rowExists).catch((e) => console.error("[assistant] could not save the answer", e));
    if (terminal?.event === "done" && related.length > 0) w.send("related_questions", { items: related });
    if (terminal) w.send(terminal.event, terminal.data);
    w.close();
  }
}

function summarize(sources: SourceSummary[], kept: RetrievalHit[]): SourceSummary[] {
  // Counts of the hits kept (the core's counts are per source before the merged top_k), so the
  // summary matches the references shown.
  return sources.map((s) => {
    const count = kept.filter((h) => h.sourceType === s.source_type).length;
    const status = s.status === "ok" && count === 0 ? "empty" : s.status;
    return { source_type: s.source_type, status, count };
  });
}

async function rewriteQuery(chat: ChatModelConfig, question: string, history: ChatMessage[], signal: AbortSignal): Promise<string> {
  if (history.length === 0) return question;
  const res = await completeChat({
    baseUrl: chat.baseUrl,
    apiKey: chat.apiKey,
    model: chat.model,
    messages: buildRewriteMessages(question, history),
    temperature: 0,
    maxTokens: 120,
    signal,
    extraBody: thinkingOffExtras(chat.model, chat.baseUrl),
    timeoutMs: chat.timeoutMs,
  });
  const line = res.text.split("\n").map((s) => s.trim()).find(Boolean);
  return line ? [...line].slice(0, 80).join("") : question;
}

async function answerWithModel(
  chat: ChatModelConfig,
  p: Prepared,
  history: ChatMessage[],
  hits: RetrievalHit[],
  context: ContextBlock[],
  emit: (t: string) => void,
  outcome: TurnOutcome,
  signal: AbortSignal,
): Promise<void> {
  const messages =
    hits.length === 0 ? buildCreativeMessages(p.question, history) : buildGroundedMessages(p.question, history, context);
  if (hits.length === 0) emit(`${NO_BASIS_ZH}以下为一般性建议，不是知识库结论：\n\n`);
  try {
    for await (const ev of streamChat({
      baseUrl: chat.baseUrl,
      apiKey: chat.apiKey,
      model: chat.model,
      messages,
      temperature: chat.temperature,
      maxTokens: chat.maxTokens,
      signal,
      extraBody: thinkingOffExtras(chat.model, chat.baseUrl),
      timeoutMs: chat.timeoutMs,
    })) {
      if (ev.type === "delta") emit(ev.text);
      else if (ev.type === "usage") outcome.usage = ev.usage;
      else if (ev.type === "finish") outcome.finishReason = ev.reason === "length" ? "length" : "stop";
    }
  } catch (e) {
    // The partial answer is kept and marked; the error event tells the client what happened.
    if (outcome.content) outcome.metadata.partial = true;
    throw e;
  }
}

/**
 * Agent mode: tool_call / tool_result events while the loop runs, then the references the answer
 * cites (numbered over the chunks the tools returned) and the answer through the same marker
 * filter as the other modes. The steps are saved with the message (metadata.agent_steps).
 */
async function answerAsAgent(
  chat: ChatModelConfig,
  p: Prepared,
  history: ChatMessage[],
  w: SseWriter,
  outcome: TurnOutcome,
  signal: AbortSignal,
  emitText: (text: string) => void,
): Promise<void> {
  const env = getEnv();
  // Filled as each call ends, so a stop keeps the steps so far (saved with the partial text).
  const steps: AgentStep[] = [];
  outcome.metadata.agent_steps = steps;
  let filter: MarkerFilter | null = null;
  // The references are every chunk the tools numbered (the answer round cannot add any), sent
  // before the answer streams, like the retrieved hits of the other modes; the markers are
  // checked against them as they stream.
  const start = (numbered: Map<number, RetrievalHit>) => {
    outcome.references = agentReferences(numbered, [...numbered.keys()]);
    w.send("references", { items: outcome.references });
    const valid = new Set(outcome.references.map((r) => r.index));
    filter = new MarkerFilter((n) => valid.has(n));
  };
  const delta = (text: string) => {
    const clean = filter!.push(text);
    if (clean) emitText(clean);
  };
  const answer = await runAgentLoop({
    chat,
    question: p.question,
    history,
    userId: p.principal.user.id,
    knowledgeId: p.knowledgeId,
    limits: { maxSteps: env.AGENT_MAX_STEPS, toolTimeoutMs: env.AGENT_TOOL_TIMEOUT_MS, turnBudgetMs: env.AGENT_TURN_BUDGET_MS },
    signal,
    events: {
      toolCall: (d) => w.send("tool_call", d),
      toolResult: (s) => {
        steps.push(s);
        w.send("tool_result", { id: s.id, name: s.name, status: s.status, count: s.count, duration_ms: s.duration_ms, summary: s.summary });
      },
      answerStart: start,
      answerDelta: delta,
    },
  });
  outcome.metadata.agent_out_of_steps = answer.outOfSteps;
  if (answer.droppedCalls) outcome.metadata.agent_dropped_calls = answer.droppedCalls;
  outcome.usage = answer.usage;
  outcome.finishReason = answer.finishReason;
  // A round that answered without streaming text (empty, or text after a call it was told
  // not to make) still ends in an answer.
  if (!answer.answerStarted) {
    start(answer.numbered);
    for (const piece of pieces(answer.text.trim() ? answer.text : NO_BASIS_ZH)) delta(piece);
  }
  const tail = filter!.flush();
  if (tail) emitText(tail);
  outcome.metadata.removed_markers = filter!.removed;
}

function answerExtractively(context: ContextBlock[], answer: string, emit: (t: string) => void): void {
  const text = context.length === 0 ? `${NO_BASIS_ZH}（未配置生成模型，无法给出一般性建议。）` : answer;
  for (const piece of pieces(text)) emit(piece);
}

async function relatedQuestions(
  chat: ChatModelConfig | null,
  question: string,
  hits: RetrievalHit[],
  context: ContextBlock[],
  answered: Set<string>,
  ask: (q: string) => Promise<RelatedCheck>,
  signal: AbortSignal,
): Promise<string[]> {
  if (context.length === 0) return [];
  const candidates = chat ? await modelCandidates(chat, question, context, signal) : candidatesFromHits(question, hits, context);
  try {
    return await checkRelated(candidates, answered, ask);
  } catch (e) {
    if (signal.aborted) throw e;
    // Related questions are optional: a failed check must not fail a finished answer.
    return [];
  }
}

async function modelCandidates(chat: ChatModelConfig, question: string, context: ContextBlock[], signal: AbortSignal): Promise<string[]> {
  try {
    const res = await completeChat({
      baseUrl: chat.baseUrl,
      apiKey: chat.apiKey,
      model: chat.model,
      messages: buildRelatedMessages(question, context),
      temperature: 0.3,
      maxTokens: 200,
      signal,
      extraBody: thinkingOffExtras(chat.model, chat.baseUrl),
      timeoutMs: 10_000,
    });
    // A few more than are shown: the check drops those the KB cannot answer.
    return parseRelated(res.text, 6);
  } catch (e) {
    if (signal.aborted) throw e;
    // Related questions are optional: a failure here must not fail a finished answer.
    return [];
  }
}

async function persistOutcome(p: Prepared, o: TurnOutcome, rowExists: boolean): Promise<void> {
  const message = {
    id: p.assistantMessageId,
    conversationId: p.conversationId,
    role: "assistant" as const,
    content: o.content,
    referencesJson: o.references,
    usageJson: o.usage,
    metadataJson: o.metadata,
    finishReason: o.finishReason,
    engine: o.engine,
  };
  try {
    if (rowExists) await finishStreamingMessage(p.raw, message, p.turnId);
    else await saveMessage(p.raw, message, p.turnId);
  } catch (e) {
    // The answer could not be saved; still free the conversation for the next question.
    await releaseTurn(p.db, p.conversationId, p.turnId);
    throw e;
  }
}
