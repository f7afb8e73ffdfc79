"use client";
import { useT } from "@/components/i18n/locale-store";
import { useAnswerModeStore } from "./answer-mode-store";

/** Offered only when bootstrap reports agent_mode_available (the caller checks). */
export function AgentModeToggle() {
  const t = useT();
  const agent = useAnswerModeStore((s) => s.agent);
  const setAgent = useAnswerModeStore((s) => s.setAgent);
  return (
    <label className="flex items-center gap-2 px-1 text-xs text-slate-600" title={t("agent.toggleHint")}>
      <input type="checkbox" data-testid="agent-mode-toggle" checked={agent} onChange={(e) => setAgent(e.target.checked)} />
      <span className="font-medium text-slate-700">{t("agent.toggle")}</span>
      <span className="hidden text-slate-500 sm:inline">{t("agent.toggleHint")}</span>
    </label>
  );
}
