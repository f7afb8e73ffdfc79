// The short provider badge of seed 002 (e.g. "AP"): derived from the provider key alone, so a
// reference, a binding and a listing show the same badge without knowing the provider.
import { cx } from "@/components/ui/cx";

export function providerBadgeText(key: string): string {
  const parts = key.split("-").filter(Boolean);
  const text = parts.length > 1 ? parts.map((p) => p[0]).join("") : key.slice(0, 2);
  return text.slice(0, 3).toUpperCase();
}

export function ProviderBadge({ sourceType, label, className }: { sourceType: string; label?: string; className?: string }) {
  return (
    <span
      data-testid="provider-badge"
      data-provider={sourceType}
      title={label ?? sourceType}
      className={cx("inline-flex shrink-0 items-center rounded bg-violet-100 px-1.5 py-px text-[10px] font-bold tracking-wide text-violet-800 ring-1 ring-inset ring-violet-200", className)}
    >
      {providerBadgeText(sourceType)}
    </span>
  );
}
