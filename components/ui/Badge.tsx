import type { ReactNode } from "react";

const TONES = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  good: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  bad: "bg-rose-50 text-rose-700 ring-rose-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-200",
  info: "bg-indigo-50 text-indigo-700 ring-indigo-200",
} as const;
export type Tone = keyof typeof TONES;

export function Badge({ tone = "neutral", children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span
      title={title}
      className={`inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

const STATUS_TONES: Record<string, Tone> = {
  completed: "good",
  failed: "bad",
  incomplete: "warn",
  paused: "warn",
  awaiting_approval: "warn",
  waiting_for_fixtures: "warn",
  waiting_for_approvals: "warn",
  running: "info",
  queued: "neutral",
  cancelled: "warn",
  blocked: "bad",
  stopped_on_divergence: "info",
  budget_exhausted: "warn",
};

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? "neutral"}>{status.replaceAll("_", " ")}</Badge>;
}
