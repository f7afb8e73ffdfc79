"use client";
import { useId } from "react";
import type { KnowledgeSummary } from "@/components/api/types";
import { useT } from "@/components/i18n/locale-store";
import { ChevronIcon } from "@/components/ui/icons";

/** Native <select>: keyboard, screen readers and phones handle it well without extra code. */
export function KbSelect({ knowledges, value, onChange, disabled }: { knowledges: KnowledgeSummary[]; value: string | null; onChange: (id: string) => void; disabled?: boolean }) {
  const t = useT();
  const id = useId();
  return (
    <div className="relative">
      <label htmlFor={id} className="sr-only">
        {t("kb.select")}
      </label>
      <select
        id={id}
        data-testid="kb-select"
        value={value ?? ""}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        className="block h-10 w-full appearance-none rounded-xl border border-slate-300 bg-white pl-3 pr-9 text-sm font-medium text-slate-800 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/40"
      >
        {knowledges.map((k) => (
          <option key={k.id} value={k.id}>
            {k.name}
          </option>
        ))}
      </select>
      <ChevronIcon className="pointer-events-none absolute right-3 top-1/2 -translate-y-1/2 text-slate-500" />
    </div>
  );
}
