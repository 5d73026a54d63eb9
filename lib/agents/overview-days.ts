import type { OverviewRow } from "@/lib/db/agent-overview";

/** A day and the sum of its rows' figures that add up (every version together). */
type DayTotals = Pick<OverviewRow, "day" | "runs" | "failed" | "costUsd" | "inputTokens" | "outputTokens">;

/** Totals per day, every version together (the charts' bars): p50/p95 are not summable, so they stay per version. */
export function totalsByDay(rows: readonly OverviewRow[]) {
  const out = new Map<string, DayTotals>();
  for (const r of rows) {
    const t = out.get(r.day) ?? { day: r.day, runs: 0, failed: 0, costUsd: 0, inputTokens: 0, outputTokens: 0 };
    t.runs += r.runs;
    t.failed += r.failed;
    t.costUsd = Math.round((t.costUsd + r.costUsd) * 1e6) / 1e6;
    t.inputTokens += r.inputTokens;
    t.outputTokens += r.outputTokens;
    out.set(r.day, t);
  }
  return [...out.values()];
}
