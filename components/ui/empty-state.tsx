import type { ReactNode } from "react";

export function EmptyState({ icon, title, hint, action, testId }: { icon?: ReactNode; title: string; hint?: string; action?: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId} className="flex flex-col items-center justify-center gap-2 px-6 py-10 text-center">
      {icon ? <div className="mb-1 rounded-full bg-slate-100 p-3 text-slate-500">{icon}</div> : null}
      <p className="text-sm font-medium text-slate-800">{title}</p>
      {hint ? <p className="max-w-xs text-sm text-slate-500">{hint}</p> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  );
}
