"use client";
// Fixed welcome copy (SPEC §6: welcome, features, examples and cautions live in the frontend).
import { useT } from "@/components/i18n/locale-store";
import type { MessageKey } from "@/components/i18n/dictionary";
import { SparkIcon } from "@/components/ui/icons";
import { focusRing } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";

export const EXAMPLE_KEYS: MessageKey[] = ["assistant.example1", "assistant.example2", "assistant.example3", "assistant.example4"];

export function Welcome({ kbName, enabled, onAsk }: { kbName: string; enabled: boolean; onAsk: (q: string) => void }) {
  const t = useT();
  return (
    <div data-testid="assistant-welcome" className="flex flex-col gap-5 px-1 py-2">
      <div className="flex items-start gap-3">
        <div className="rounded-xl bg-indigo-600 p-2 text-white">
          <SparkIcon width={20} height={20} />
        </div>
        <div>
          <h3 className="text-base font-semibold text-slate-900">{t("assistant.welcomeTitle")}</h3>
          <p className="mt-1 text-sm text-slate-600">{t("assistant.welcomeBody", { name: kbName })}</p>
        </div>
      </div>
      <div>
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{t("assistant.canDo")}</h4>
        <ul className="mt-2 space-y-1.5 text-sm text-slate-700">
          {(["assistant.canDo1", "assistant.canDo2", "assistant.canDo3"] as const).map((k) => (
            <li key={k} className="flex gap-2">
              <span aria-hidden="true" className="mt-2 h-1.5 w-1.5 shrink-0 rounded-full bg-indigo-400" />
              {t(k)}
            </li>
          ))}
        </ul>
      </div>
      <div>
        <h4 className="text-xs font-semibold uppercase tracking-wide text-slate-500">{t("assistant.examples")}</h4>
        <div className="mt-2 flex flex-col gap-2">
          {EXAMPLE_KEYS.map((k) => (
            <button
              key={k}
              type="button"
              data-testid="example-question"
              disabled={!enabled}
              onClick={() => onAsk(t(k))}
              className={cx(
                "rounded-xl border border-slate-200 bg-white px-3 py-2 text-left text-sm text-slate-700 transition-colors hover:border-indigo-300 hover:bg-indigo-50 hover:text-indigo-900 disabled:cursor-not-allowed disabled:opacity-60 disabled:hover:border-slate-200 disabled:hover:bg-white disabled:hover:text-slate-700",
                focusRing,
              )}
            >
              {t(k)}
            </button>
          ))}
        </div>
      </div>
      <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs leading-relaxed text-amber-900">{t("assistant.cautions")}</p>
    </div>
  );
}
