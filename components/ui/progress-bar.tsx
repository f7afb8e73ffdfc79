import { cx } from "./cx";

export function ProgressBar({ value, label, tone = "brand" }: { value: number; label: string; tone?: "brand" | "error" | "success" }) {
  const pct = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} className="h-1.5 w-full overflow-hidden rounded-full bg-slate-200">
      <div
        className={cx("h-full rounded-full transition-[width] duration-300", tone === "error" ? "bg-rose-500" : tone === "success" ? "bg-emerald-500" : "bg-indigo-500")}
        style={{ width: `${pct}%` }}
      />
    </div>
  );
}
