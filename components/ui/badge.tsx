import type { ReactNode } from "react";
import { cx } from "./cx";

export type BadgeTone = "neutral" | "info" | "success" | "warn" | "error" | "brand";

const TONES: Record<BadgeTone, string> = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  info: "bg-sky-50 text-sky-800 ring-sky-200",
  success: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-200",
  error: "bg-rose-50 text-rose-800 ring-rose-200",
  brand: "bg-indigo-50 text-indigo-800 ring-indigo-200",
};

export function Badge({ tone = "neutral", children, className, ...rest }: { tone?: BadgeTone; children: ReactNode; className?: string } & Record<`data-${string}`, string>) {
  return (
    <span className={cx("inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset", TONES[tone], className)} {...rest}>
      {children}
    </span>
  );
}
