import type { OverviewRow } from "@/lib/db/agent-overview";

/** Totals per day, every version together (the charts' bars): p50/p95 are not summable, so they stay per version. */
export function totalsByDay(rows: readonly OverviewRow[]) {
  const out = new Map<string, { day: string; runs: number; failed: number; costUsd: number; tokens: number }>();
  for (const r of rows) {
    const t = out.get(r.day) ?? { day: r.day, runs: 0, failed: 0, costUsd: 0, tokens: 0 };
    t.runs += r.runs;
    t.failed += r.failed;
    t.costUsd = Math.round((t.costUsd + r.costUsd) * 1e6) / 1e6;
    t.tokens += r.inputTokens + r.outputTokens;
    out.set(r.day, t);
  }
  return [...out.values()];
}
