"use client";
// Flow gallery (issue 7): every assistant state side by side, rendered by the same components
// the workspace uses, fed with fixtures. Interactions stay local: asking appends a canned
// answer, nothing touches the network or the database.
import { useReducer, useState, useSyncExternalStore, type ReactNode } from "react";
import type { AssistantBootstrap, KnowledgeSummary } from "@/components/api/types";
import { AssistantView, type AssistantViewProps, type LoadState } from "@/components/assistant/assistant-view";
import { chatReducer, type ChatSession } from "@/components/assistant/chat-reducer";
import { useT } from "@/components/i18n/locale-store";
import { DocumentBody } from "@/components/viewer/document-viewer";
import { TextPdfPage } from "@/components/viewer/pdf-page-seam";
import { graphOverview, GRAPH_ENTITIES, GRAPH_HOOD, GRAPH_RELATION } from "@/components/graph/graph-fixtures";
import { GraphView, type GraphSelection } from "@/components/graph/graph-view";
import { EVAL_RESULTS, EVAL_RUN_DONE, EVAL_RUN_FAILED, EVAL_RUN_RUNNING, EVAL_RUN_STRICT } from "@/components/evaluation/evaluation-fixtures";
import { MetricCards, ResultsTable, RunCharts, RunCompare, RunProgress, RunSettingsLine, RunStatusBadge } from "@/components/evaluation/run-views";
import { FileListView } from "@/components/workspace/file-list-view";
import { LanguageSwitch } from "@/components/workspace/language-switch";
import { DocumentListing } from "@/components/knowledge/document-listing";
import { KnowledgePanelView, type KnowledgePanelViewProps } from "@/components/knowledge/knowledge-panel-view";
import {
  BOUND_DOCUMENT,
  CONVERSATIONS,
  DOCX_REF,
  EXTERNAL_PROVIDERS,
  EXTERNAL_SOURCES_TURN,
  FIXTURE_KB_ID,
  KNOWLEDGES,
  LISTING_ITEMS,
  PDF_DOCUMENT,
  PDF_REF,
  SESSIONS,
  bootstrap,
  fileStates,
} from "./fixtures";

/** The Graph tab in one state; in "ready" a search, the product's neighbourhood and a selected relation. */
function GraphFixture({ status }: { status: "ready" | "empty" | "building" | "failed" | "disabled" }) {
  const [selection, setSelection] = useState<GraphSelection>({ kind: "relation", id: GRAPH_RELATION.relation.id });
  const ready = status === "ready";
  return (
    <GraphView
      overview={graphOverview(status)}
      overviewError={null}
      canWrite
      query={ready ? "云笺" : ""}
      onQueryChange={() => undefined}
      results={ready ? GRAPH_ENTITIES.slice(0, 2) : undefined}
      searching={false}
      centerId={ready ? GRAPH_HOOD.center.id : null}
      onCenter={() => undefined}
      depth={1}
      onDepthChange={() => undefined}
      hood={ready ? GRAPH_HOOD : undefined}
      selection={selection}
      onSelect={setSelection}
      entityDetail={selection?.kind === "entity" ? { entity: GRAPH_ENTITIES.find((e) => e.id === selection.id) ?? GRAPH_ENTITIES[0]!, mentions: GRAPH_RELATION.passages } : undefined}
      relationDetail={selection?.kind === "relation" ? GRAPH_RELATION : undefined}
      detailLoading={false}
      onOpenPassage={() => undefined}
      onSettings={() => undefined}
      settingsBusy={false}
    />
  );
}

function FlowCard({ id, title, note, children, wide }: { id: string; title: string; note?: string; children: ReactNode; wide?: boolean }) {
  return (
    <section data-testid="flow-state" data-state={id} aria-labelledby={`flow-${id}`} className={wide ? "md:col-span-2" : undefined}>
      <h2 id={`flow-${id}`} className="text-sm font-semibold text-slate-800">
        {title} <code className="ml-1 rounded bg-slate-200/70 px-1.5 py-0.5 text-[0.7rem] font-normal text-slate-600">{id}</code>
      </h2>
      {note ? <p className="mt-0.5 text-xs text-slate-600">{note}</p> : null}
      {/* A fixed height like the sidebar's; a state taller than it scrolls inside the card instead
          of being cut off (views scroll their own regions, never the page: scrollWithin). */}
      <div className="mt-2 h-[640px] overflow-y-auto rounded-2xl border border-slate-200 bg-white shadow-sm">{children}</div>
    </section>
  );
}

interface FixtureProps {
  session?: ChatSession;
  boot?: AssistantBootstrap;
  bootState?: LoadState;
  knowledges?: KnowledgeSummary[];
  historyOpen?: boolean;
  draft?: string;
  knowledge?: Partial<KnowledgePanelViewProps>;
}

function KnowledgeFixture(p: Partial<KnowledgePanelViewProps>) {
  return (
    <KnowledgePanelView
      kbName="示例知识库"
      fileCount={3}
      bindings={[]}
      bindingsState="ready"
      pending={false}
      providers={EXTERNAL_PROVIDERS}
      providersState="ready"
      onBind={() => undefined}
      onUnbind={() => undefined}
      {...p}
    />
  );
}

function AssistantFixture({ session, boot, bootState = "ready", knowledges = KNOWLEDGES, historyOpen, draft, knowledge }: FixtureProps) {
  const [state, dispatch] = useReducer(chatReducer, session ?? SESSIONS.empty());
  const props: AssistantViewProps = {
    knowledges,
    knowledgesState: "ready",
    selectedKbId: knowledges[0]?.id ?? null,
    onSelectKb: () => undefined,
    onCreateKb: () => undefined,
    bootstrap: bootState === "ready" ? (boot ?? bootstrap("ready")) : undefined,
    bootstrapState: bootState,
    bootstrapError: bootState === "error" ? "HTTP 502" : null,
    onRetryBootstrap: () => undefined,
    session: state,
    onAsk: (q) => {
      const assistantId = `fx-a-${state.messages.length}`;
      dispatch({ type: "ask", userId: `fx-u-${state.messages.length}`, assistantId, question: q });
      dispatch({ type: "references", items: [PDF_REF, DOCX_REF] });
      dispatch({ type: "delta", text: "（示例回答）根据知识库资料，相关内容见 [1] 与 [2]。" });
      dispatch({ type: "done", finishReason: "stop", engine: "model" });
    },
    onStop: () => dispatch({ type: "stopped" }),
    onRetry: (id) => dispatch({ type: "remove-exchange", assistantId: id }),
    conversations: CONVERSATIONS,
    conversationsState: "ready",
    onSelectConversation: () => undefined,
    onNewConversation: () => dispatch({ type: "reset" }),
    onDeleteConversation: async () => undefined,
    onStatusAction: () => undefined,
    initialHistoryOpen: historyOpen,
    initialDraft: draft,
    knowledgePanel: <KnowledgeFixture {...knowledge} />,
    initialKnowledgeOpen: !!knowledge,
  };
  return <AssistantView {...props} />;
}

function FilesFixture({ canWrite = true, empty = false }: { canWrite?: boolean; empty?: boolean }) {
  const fx = fileStates();
  return (
    <div className="flex h-full flex-col bg-slate-50">
      <FileListView
        files={empty ? [] : fx.files}
        // Upload rows exist only for someone who can upload: a viewer's list has none.
        uploads={empty || !canWrite ? [] : fx.uploads}
        progress={fx.progress}
        canWrite={canWrite}
        onUpload={() => undefined}
        onOpen={() => undefined}
        onDelete={async () => undefined}
        onReparse={async () => undefined}
        onDismissUpload={() => undefined}
      />
    </div>
  );
}

export const FLOW_STATE_IDS = [
  "welcome-ready",
  "status-empty",
  "status-indexing",
  "status-failed",
  "status-disabled",
  "ready-partial-indexing",
  "status-loading",
  "status-error",
  "no-knowledge-base",
  "retrieving",
  "streaming",
  "answered",
  "answered-extractive",
  "no-relevant-context",
  "model-error",
  "stopped",
  "interrupted",
  "long-answer",
  "untrusted-content",
  "history",
  "composer-limit",
  "viewer-pdf",
  "files-all-states",
  "files-empty",
  "files-viewer-role",
] as const;

const noSubscribe = () => () => {};

export function FlowGallery() {
  const t = useT();
  // False in the server's HTML, true once React has hydrated: the gallery is one large page of
  // server-rendered states, and a click before hydration (a reviewer's, or a test's) does nothing.
  const hydrated = useSyncExternalStore(noSubscribe, () => true, () => false);
  return (
    <div data-testid="flow-gallery" data-hydrated={hydrated ? "true" : "false"} className="min-h-dvh bg-slate-100">
      <header className="sticky top-0 z-10 flex items-center gap-3 border-b border-slate-200 bg-white/90 px-6 py-3 backdrop-blur">
        <div>
          <h1 className="text-base font-semibold text-slate-900">{t("flows.title")}</h1>
          <p className="text-xs text-slate-500">{t("flows.subtitle")}</p>
        </div>
        <div className="ml-auto">
          <LanguageSwitch />
        </div>
      </header>
      <main className="grid grid-cols-1 gap-8 p-6 md:grid-cols-2 xl:grid-cols-3">
        <FlowCard id="welcome-ready" title="Welcome · ready">
          <AssistantFixture />
        </FlowCard>
        <FlowCard id="status-empty" title="Empty knowledge base">
          <AssistantFixture boot={bootstrap("empty", { file_count: 0 })} />
        </FlowCard>
        <FlowCard id="status-indexing" title="Indexing, nothing searchable yet">
          <AssistantFixture boot={bootstrap("indexing")} />
        </FlowCard>
        <FlowCard id="status-failed" title="Every file failed">
          <AssistantFixture boot={bootstrap("failed")} />
        </FlowCard>
        <FlowCard id="status-disabled" title="Assistant disabled for this user">
          <AssistantFixture boot={bootstrap("disabled")} />
        </FlowCard>
        <FlowCard id="ready-partial-indexing" title="Ready, some files still indexing">
          <AssistantFixture boot={bootstrap("ready", { file_count: 5, ready_file_count: 3, indexing_file_count: 2 })} />
        </FlowCard>
        <FlowCard id="status-loading" title="Checking the knowledge base">
          <AssistantFixture bootState="loading" />
        </FlowCard>
        <FlowCard id="status-error" title="Status could not be loaded">
          <AssistantFixture bootState="error" />
        </FlowCard>
        <FlowCard id="no-knowledge-base" title="No knowledge base yet">
          <AssistantFixture knowledges={[]} />
        </FlowCard>
        <FlowCard id="retrieving" title="Searching the knowledge base">
          <AssistantFixture session={SESSIONS.retrieving()} />
        </FlowCard>
        <FlowCard id="streaming" title="Streaming answer">
          <AssistantFixture session={SESSIONS.streaming()} />
        </FlowCard>
        <FlowCard id="answered" title="Answered with references" note="PDF reference (opens the viewer), DOCX reference, and an external source with no opener (plain-text fallback).">
          <AssistantFixture session={SESSIONS.answered()} />
        </FlowCard>
        <FlowCard id="answered-extractive" title="Answered by the extractive engine">
          <AssistantFixture session={SESSIONS.extractive()} />
        </FlowCard>
        <FlowCard id="no-relevant-context" title="NO_RELEVANT_CONTEXT">
          <AssistantFixture session={SESSIONS.noContext()} />
        </FlowCard>
        <FlowCard id="model-error" title="Model error">
          <AssistantFixture session={SESSIONS.modelError()} />
        </FlowCard>
        <FlowCard id="stopped" title="Stopped answer">
          <AssistantFixture session={SESSIONS.stopped()} />
        </FlowCard>
        <FlowCard id="interrupted" title="Answer cut off by a server stop (kept, marked interrupted)">
          <AssistantFixture session={SESSIONS.interrupted()} />
        </FlowCard>
        <FlowCard id="long-answer" title="Long answer, many references">
          <AssistantFixture session={SESSIONS.long()} />
        </FlowCard>
        <FlowCard id="untrusted-content" title="Untrusted content rendered as text" note="HTML, scripts, javascript: links and remote images in answers and file names stay inert.">
          <AssistantFixture session={SESSIONS.unsafe()} />
        </FlowCard>
        <FlowCard id="history" title="Conversation history">
          <AssistantFixture session={SESSIONS.answered("history")} historyOpen />
        </FlowCard>
        <FlowCard id="composer-limit" title="Composer at the 200-character limit">
          <AssistantFixture draft={"请详细说明".repeat(40)} />
        </FlowCard>
        <FlowCard id="external-sources-turn" title="External sources in one turn" note="Built-in and an external source answered (badges, locator and metadata as plain text); others timed out, found nothing or failed — each only its own notice.">
          <AssistantFixture session={EXTERNAL_SOURCES_TURN} />
        </FlowCard>
        <FlowCard id="knowledge-bound-document" title="Knowledge entry: a bound document" note="One list: the built-in KB and a document of an external source with its provider badge; a provider without listing offers only “everything accessible”.">
          <AssistantFixture knowledge={{ bindings: [BOUND_DOCUMENT] }} />
        </FlowCard>
        <FlowCard id="knowledge-listing" title="Knowledge entry: browsing a source (list_documents)">
          <div className="p-4">
            <DocumentListing
              provider={{ key: "docs", label: "Docs" }}
              level={{ source: { id: "handbook", name: "Team handbook" }, folder: null }}
              items={LISTING_ITEMS}
              state="ready"
              onOpen={() => undefined}
              isBound={(r) => r.document_id === "doc-release"}
              onBind={() => undefined}
            />
          </div>
        </FlowCard>
        <FlowCard id="knowledge-no-listing" title="Knowledge entry: providers without list_documents" note="No registered source view: no browse entry, a plain row instead.">
          <AssistantFixture knowledge={{ providers: EXTERNAL_PROVIDERS.filter((p) => !p.capabilities.list_documents || p.builtin) }} />
        </FlowCard>
        <FlowCard id="knowledge-provider-failed" title="Knowledge entry: a provider failing to load" note="Local, non-blocking notices; the built-in KB and unbinding keep working.">
          <AssistantFixture knowledge={{ bindings: [BOUND_DOCUMENT], providersState: "error" }} />
          <div className="border-t border-slate-200 p-4">
            <DocumentListing provider={{ key: "docs", label: "Docs" }} level={{ source: null, folder: null }} items={undefined} state="error" onOpen={() => undefined} isBound={() => false} onBind={() => undefined} />
          </div>
        </FlowCard>
        <FlowCard id="viewer-pdf" title="PDF reference opened at its page" note="Page 8 with the quote highlighted, in the extracted-text rendering (the pdf.js fallback; the gallery fetches no originals).">
          <div tabIndex={0} role="region" aria-label="viewer-pdf" className="h-full overflow-y-auto bg-slate-100/60 p-4">
            <DocumentBody doc={PDF_DOCUMENT} target={{ kbId: FIXTURE_KB_ID, fileId: "file-pdf", fileName: PDF_REF.file_name, page: 8, quote: PDF_REF.quote, chunkId: null, nonce: 1 }} pdfPageRenderer={TextPdfPage} />
          </div>
        </FlowCard>
        <FlowCard id="files-all-states" title="Files: upload and every parse state" wide>
          <FilesFixture />
        </FlowCard>
        <FlowCard id="files-empty" title="Files: empty knowledge base">
          <FilesFixture empty />
        </FlowCard>
        <FlowCard id="files-viewer-role" title="Files: viewer role (no upload or delete)">
          <FilesFixture canWrite={false} />
        </FlowCard>
        <FlowCard id="graph-ready" title="Graph: a product's neighbourhood, a relation's passages" wide>
          <GraphFixture status="ready" />
        </FlowCard>
        <FlowCard id="graph-empty" title="Graph: no files yet">
          <GraphFixture status="empty" />
        </FlowCard>
        <FlowCard id="graph-building" title="Graph: being built">
          <GraphFixture status="building" />
        </FlowCard>
        <FlowCard id="graph-failed" title="Graph: building failed (files still searchable)">
          <GraphFixture status="failed" />
        </FlowCard>
        <FlowCard id="graph-disabled" title="Graph: turned off for this knowledge base">
          <GraphFixture status="disabled" />
        </FlowCard>
        <FlowCard id="evaluation-results" title="Evaluation: a finished run — metrics, charts, per-question table" wide>
          <div className="flex h-full flex-col gap-3 overflow-y-auto p-4">
            <div className="flex items-center gap-2"><RunStatusBadge run={EVAL_RUN_DONE} /><RunSettingsLine run={EVAL_RUN_DONE} /></div>
            <MetricCards metrics={EVAL_RUN_DONE.metrics!} />
            <RunCharts metrics={EVAL_RUN_DONE.metrics!} />
            <ResultsTable rows={EVAL_RESULTS} />
          </div>
        </FlowCard>
        <FlowCard id="evaluation-compare" title="Evaluation: two runs side by side (min_score 0.5 vs 0.9)" wide>
          <div className="h-full overflow-y-auto p-4"><RunCompare a={EVAL_RUN_DONE} b={EVAL_RUN_STRICT} /></div>
        </FlowCard>
        <FlowCard id="evaluation-running" title="Evaluation: a run in progress (cancel offered in the run list)">
          <div className="flex flex-col gap-2 p-4"><RunStatusBadge run={EVAL_RUN_RUNNING} /><RunProgress run={EVAL_RUN_RUNNING} /></div>
        </FlowCard>
        <FlowCard id="evaluation-failed" title="Evaluation: a run interrupted by a restart (marked failed)">
          <div className="flex flex-col gap-2 p-4">
            <RunStatusBadge run={EVAL_RUN_FAILED} />
            <RunProgress run={EVAL_RUN_FAILED} />
            <p role="alert" className="rounded-lg bg-rose-50 px-3 py-2 text-sm text-rose-800">{EVAL_RUN_FAILED.error_message}</p>
          </div>
        </FlowCard>
      </main>
    </div>
  );
}
