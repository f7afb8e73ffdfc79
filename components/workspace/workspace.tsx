"use client";
// The page around the sidebar: header, KB list, files / document viewer, assistant. Three
// columns from 1024 px up; below that the KB list is a drawer and the assistant a sheet.
import { useEffect } from "react";
import { useRouter } from "next/navigation";
import { useKnowledges, useMe } from "@/components/api/queries";
import { isApiError, isUnauthenticated } from "@/components/api/http-client";
import { AssistantSidebar } from "@/components/assistant/assistant-sidebar";
import { readConversationLocation } from "@/components/assistant/conversation-url";
import { resolveSelectedKb } from "@/components/assistant/assistant-status";
import { useT } from "@/components/i18n/locale-store";
import { GraphPanel } from "@/components/graph/graph-panel";
import { DocumentViewer } from "@/components/viewer/document-viewer";
import { useViewerTarget } from "@/components/viewer/viewer-store";
import { Button, focusRing } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { BookIcon, ChatIcon, CloseIcon, MenuIcon, SparkIcon } from "@/components/ui/icons";
import { Spinner } from "@/components/ui/spinner";
import { useMediaQuery } from "@/components/ui/use-media-query";
import { cx } from "@/components/ui/cx";
import { EvaluationPanel } from "@/components/evaluation/evaluation-panel";
import { FeedbackPanel } from "@/components/feedback/feedback-panel";
import { RetrievalTestPanel } from "@/components/retrieval-test/retrieval-test-panel";
import { FilePanel } from "./file-panel";
import { KbHeader, canWrite } from "./kb-header";
import { KbList } from "./kb-list";
import { LanguageSwitch } from "./language-switch";
import { UserMenu } from "./user-menu";
import { readStoredKbId, useWorkspaceStore } from "./workspace-store";

export function Workspace() {
  const t = useT();
  const router = useRouter();
  const me = useMe();
  const signedIn = me.isSuccess;
  const kbs = useKnowledges(signedIn);
  const selectedKbId = useWorkspaceStore((s) => s.selectedKbId);
  const selectKb = useWorkspaceStore((s) => s.selectKb);
  const mainTab = useWorkspaceStore((s) => s.mainTab);
  const setMainTab = useWorkspaceStore((s) => s.setMainTab);
  const sheetOpen = useWorkspaceStore((s) => s.assistantSheetOpen);
  const setSheet = useWorkspaceStore((s) => s.setAssistantSheetOpen);
  const drawerOpen = useWorkspaceStore((s) => s.kbDrawerOpen);
  const setDrawer = useWorkspaceStore((s) => s.setKbDrawerOpen);
  const viewerTarget = useViewerTarget();
  const desktop = useMediaQuery("(min-width: 1024px)");

  useEffect(() => {
    if (isUnauthenticated(me.error)) router.replace("/sign-in");
  }, [me.error, router]);

  // Stored KB if still accessible, else the first one (SPEC §11); re-checked whenever the list
  // changes, e.g. after the selected KB was deleted.
  useEffect(() => {
    if (!kbs.data) return;
    const current = useWorkspaceStore.getState().selectedKbId;
    // The KB in the URL (a reload, a shared conversation link) first, then the stored one.
    const next = resolveSelectedKb(kbs.data, current ?? readConversationLocation().kb ?? readStoredKbId());
    if (next !== current) selectKb(next);
  }, [kbs.data, selectKb]);

  if (me.isPending || isUnauthenticated(me.error)) {
    return (
      <div className="flex h-dvh items-center justify-center text-slate-500">
        <Spinner label={t("common.loading")} />
      </div>
    );
  }
  if (me.isError) {
    return (
      <div className="flex h-dvh items-center justify-center p-6">
        <p role="alert" className="rounded-xl bg-rose-50 px-4 py-3 text-sm text-rose-800">
          {t("common.loadFailed", { message: isApiError(me.error) ? me.error.message : String(me.error) })}
        </p>
      </div>
    );
  }

  const kb = kbs.data?.find((k) => k.id === selectedKbId) ?? null;
  const kbList = <KbList knowledges={kbs.data} loading={kbs.isPending} error={kbs.isError ? (isApiError(kbs.error) ? kbs.error.message : String(kbs.error)) : null} />;

  return (
    <div className="flex h-dvh flex-col overflow-clip bg-slate-50">
      {/* The first Tab stop: straight to the question box, past the KB list and every file row. */}
      <a
        href="#"
        data-testid="skip-to-composer"
        onClick={(e) => {
          e.preventDefault();
          if (!desktop) setSheet(true);
          requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>("[data-testid=composer]")?.focus());
        }}
        className="sr-only rounded-lg bg-indigo-600 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:absolute focus:left-3 focus:top-3 focus:z-50"
      >
        {t("a11y.skipToComposer")}
      </a>
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-slate-200 bg-white px-3 sm:px-4">
        {!desktop ? (
          <Button variant="ghost" size="icon" aria-label={t("kb.openList")} aria-expanded={drawerOpen} onClick={() => setDrawer(true)}>
            <MenuIcon />
          </Button>
        ) : null}
        <div className="flex items-center gap-2">
          <span aria-hidden="true" className="rounded-lg bg-indigo-600 p-1.5 text-white">
            <SparkIcon />
          </span>
          <span className="text-base font-semibold text-slate-900">{t("app.name")}</span>
          <span className="hidden text-sm text-slate-500 md:inline">· {t("app.tagline")}</span>
        </div>
        <div className="ml-auto flex items-center gap-1">
          <LanguageSwitch />
          {!desktop ? (
            <Button variant="primary" size="sm" data-testid="assistant-open" aria-label={t("assistant.open")} onClick={() => setSheet(true)}>
              <ChatIcon />
              {/* Labelled on phones too: an unlabeled icon hid the assistant. */}
              <span>{t("assistant.title")}</span>
            </Button>
          ) : null}
          <UserMenu me={me.data} />
        </div>
      </header>
      <div className="flex min-h-0 flex-1">
        {desktop ? <aside className="w-64 shrink-0 border-r border-slate-200 bg-white xl:w-72">{kbList}</aside> : null}
        <main className="flex min-w-0 flex-1 flex-col">
          {kb ? (
            <>
              <KbHeader kb={kb} />
              <div role="tablist" aria-label={kb.name} className="flex gap-1 border-b border-slate-200 bg-white px-4 sm:px-6">
                {(["files", "viewer", "graph", ...(canWrite(kb.role) ? (["retrieval-test", "evaluation", "feedback"] as const) : [])] as const).map((tab) => (
                  <button
                    key={tab}
                    type="button"
                    role="tab"
                    id={`tab-${tab}`}
                    aria-selected={mainTab === tab}
                    aria-controls={`panel-${tab}`}
                    data-testid={`tab-${tab}`}
                    onClick={() => setMainTab(tab)}
                    className={cx("-mb-px border-b-2 px-3 py-2.5 text-sm font-medium", focusRing, mainTab === tab ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-500 hover:text-slate-800")}
                  >
                    {tab === "files" ? t("tabs.files") : tab === "graph" ? t("tabs.graph") : tab === "viewer" ? t("tabs.viewer") : tab === "evaluation" ? t("tabs.evaluation") : tab === "feedback" ? t("feedback.tab") : t("tabs.retrievalTest")}
                    {tab === "viewer" && viewerTarget?.fileName ? <span className="ml-1 hidden max-w-[12rem] truncate align-bottom text-slate-500 sm:inline-block">· {viewerTarget.fileName}</span> : null}
                  </button>
                ))}
              </div>
              <div role="tabpanel" id={`panel-${mainTab}`} aria-labelledby={`tab-${mainTab}`} className="flex min-h-0 flex-1 flex-col">
                {mainTab === "files" ? (
                  <FilePanel kbId={kb.id} canWrite={canWrite(kb.role)} />
                ) : mainTab === "graph" ? (
                  <GraphPanel key={kb.id} kbId={kb.id} canWrite={canWrite(kb.role)} />
                ) : mainTab === "retrieval-test" && canWrite(kb.role) ? (
                  <RetrievalTestPanel key={kb.id} kbId={kb.id} />
                ) : mainTab === "evaluation" && canWrite(kb.role) ? (
                  <EvaluationPanel key={kb.id} kbId={kb.id} />
                ) : mainTab === "feedback" && canWrite(kb.role) ? (
                  <FeedbackPanel key={kb.id} kbId={kb.id} />
                ) : (
                  <DocumentViewer />
                )}
              </div>
            </>
          ) : kbs.isPending ? (
            <div className="flex flex-1 items-center justify-center text-slate-500">
              <Spinner label={t("common.loading")} />
            </div>
          ) : (
            <EmptyState icon={<BookIcon width={20} height={20} />} title={t("kb.empty")} hint={t("kb.emptyHint")} />
          )}
        </main>
        {desktop ? (
          <aside className="flex w-[400px] shrink-0 flex-col border-l border-slate-200 xl:w-[440px]">
            <AssistantSidebar />
          </aside>
        ) : null}
      </div>
      {!desktop && drawerOpen ? (
        <div className="fixed inset-0 z-40 flex">
          <button type="button" aria-label={t("common.close")} className="absolute inset-0 bg-slate-900/40" onClick={() => setDrawer(false)} />
          <div className="relative flex w-72 max-w-[85vw] flex-col bg-white shadow-xl">
            <div className="flex justify-end p-2">
              <Button variant="ghost" size="icon" aria-label={t("common.close")} onClick={() => setDrawer(false)}>
                <CloseIcon />
              </Button>
            </div>
            <div className="min-h-0 flex-1">{kbList}</div>
          </div>
        </div>
      ) : null}
      {!desktop && sheetOpen ? (
        <div className="fixed inset-0 z-40 flex justify-end" data-testid="assistant-sheet">
          <button type="button" aria-label={t("assistant.close")} className="absolute inset-0 bg-slate-900/40" onClick={() => setSheet(false)} />
          <div role="dialog" aria-modal="true" aria-label={t("assistant.title")} className="relative flex h-full w-full max-w-md flex-col shadow-xl">
            <AssistantSidebar onClose={() => setSheet(false)} />
          </div>
        </div>
      ) : null}
    </div>
  );
}
