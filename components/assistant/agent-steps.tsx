"use client";
// The steps of an agent-mode answer (issue 17): one line per tool call, live while streaming,
// collapsible, and the same after a reload (the steps are saved with the message).
import type { AgentStepView } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import type { MessageKey } from "@/components/i18n/dictionary";
import { Spinner } from "@/components/ui/spinner";

type T = (key: MessageKey, vars?: Record<string, string | number>) => string;

function quoted(v: unknown, max = 2): string {
  const items = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
  const shown = items.slice(0, max).map((s) => `“${s.length > 24 ? `${s.slice(0, 24)}…` : s}”`);
  return items.length > max ? `${shown.join("、")} +${items.length - max}` : shown.join("、");
}

/** A person-readable line for a step, e.g. 搜索 “保修期”：5 条 · 读取文档 第 3–7 段. */
export function stepLabel(step: AgentStepView, t: T): string {
  const args = (step.arguments && typeof step.arguments === "object" ? step.arguments : {}) as Record<string, unknown>;
  const count = step.count;
  switch (step.name) {
    case "knowledge_search":
      return t("agent.step.search", { query: quoted(args.queries), count });
    case "grep_chunks":
      return t("agent.step.grep", { keywords: quoted(args.keywords, 3), count });
    case "list_knowledge_chunks": {
      const from = Number(args.offset ?? 0) + 1;
      return t("agent.step.read", { from, to: from + Math.max(0, count - 1) });
    }
    case "get_document_info":
      return t("agent.step.info", { count });
    case "list_knowledge_bases":
      return t("agent.step.kbs", { count });
    default:
      return t("agent.step.other", { name: step.name, count });
  }
}

export function AgentSteps({ steps, live }: { steps: AgentStepView[]; live: boolean }) {
  const t = useT();
  if (steps.length === 0) return null;
  return (
    <details data-testid="agent-steps" open={live || undefined} className="mb-2 rounded-lg bg-slate-50 px-2.5 py-1.5 text-xs text-slate-600">
      <summary className="cursor-pointer select-none font-medium text-slate-700">{t("agent.steps", { count: steps.length })}</summary>
      <ol className="mt-1 flex flex-col gap-0.5">
        {steps.map((s) => (
          <li key={s.id} data-testid="agent-step" data-status={s.status} title={s.summary} className="flex items-center gap-1.5">
            {s.status === "running" ? <Spinner className="h-3 w-3 text-indigo-500" /> : <span aria-hidden="true">{s.status === "ok" ? "✓" : "✕"}</span>}
            <span className={s.status === "error" ? "text-rose-700" : undefined}>
              {s.status === "running" ? stepLabel({ ...s, count: 0 }, t).replace(/[:：].*$/, "…") : stepLabel(s, t)}
              {s.status === "error" ? ` — ${t("agent.step.failed")}` : ""}
            </span>
          </li>
        ))}
      </ol>
    </details>
  );
}
