/**
 * What the experiment page's charts draw, computed from what the page already has (the summary, the members,
 * the coverage). Pure, so the numbers in each chart's text alternative are tested without a browser.
 */
import type { ToolCoverage } from "@/lib/replay";
import type { ExperimentDetail, ExperimentResult } from "@/lib/server/experiments/experiments";

export const pct = (x: number) => Math.round(x * 100);

type Outcomes = NonNullable<ExperimentDetail["summary"]["outcomes"]>;
type Rate = Outcomes["base"];

export interface PassRateRow {
  name: string;
  /** Percent passed, rounded. */
  rate: number;
  /** Distances from `rate` down to the interval's low end and up to its high end, in points. */
  interval: [number, number];
  low: number;
  high: number;
  successes: number;
  n: number;
}

function rateRow(name: string, r: Rate): PassRateRow {
  const rate = pct(r.rate ?? 0);
  const low = pct(r.low);
  const high = pct(r.high);
  return { name, rate, interval: [rate - low, high - rate], low, high, successes: r.successes, n: r.n };
}

/** Base runs and branches: pass rate with its 95% Wilson interval; empty until a member has a verdict on both. */
export function passRateRows(outcomes: Outcomes): PassRateRow[] {
  if (outcomes.judged === 0) return [];
  return [rateRow("Base runs", outcomes.base), rateRow("Branches", outcomes.branch)];
}

export interface DivergenceHistogram {
  /** Finished branches that were compared with their base. */
  compared: number;
  /** Of those, how many never diverged. */
  never: number;
  /** Per step (the comparison's pair index), how many branches first diverged there; ascending. */
  buckets: { step: number; count: number }[];
}

/** Where the finished branches first diverged from their base runs. */
export function divergenceHistogram(results: readonly ExperimentResult[]): DivergenceHistogram {
  const compared = results.filter((r) => r.deltas !== null);
  const counts = new Map<number, number>();
  let never = 0;
  for (const r of compared) {
    if (!r.firstDivergence) never += 1;
    else counts.set(r.firstDivergence.pairIndex, (counts.get(r.firstDivergence.pairIndex) ?? 0) + 1);
  }
  const buckets = [...counts].map(([step, count]) => ({ step, count })).sort((a, b) => a.step - b.step);
  return { compared: compared.length, never, buckets };
}

export interface MissRateRow {
  tool: string;
  calls: number;
  missed: number;
  /** Percent of the tool's calls that the policy could not answer from its sources, rounded. */
  rate: number;
}

/** Per tool: the share of its calls that missed (no recording or rule answered them), highest first. */
export function missRateRows(tools: readonly ToolCoverage[]): MissRateRow[] {
  return tools
    .filter((t) => t.calls > 0)
    .map((t) => {
      // Counts, not steps: an experiment's summed coverage keeps no steps. A call a paused branch waits on is
      // counted among the misses but is no step yet; the clamp keeps the share a share.
      const missed = Math.min(
        t.calls,
        t.misses.reduce((n, m) => n + m.count, 0),
      );
      return { tool: t.tool, calls: t.calls, missed, rate: Math.round((missed / t.calls) * 100) };
    })
    .sort((a, b) => b.rate - a.rate || a.tool.localeCompare(b.tool));
}

export interface DeltaRow {
  session: string;
  replayId: string;
  /** Branch minus base, USD, to the hundredth of a cent. */
  costUsd: number;
  /** Branch minus base, ms. */
  latencyMs: number;
}

const cents = (usd: number) => Math.round(usd * 10_000) / 10_000;

/** Cost and latency of each finished branch against its base run. */
export function deltaRows(results: readonly ExperimentResult[]): DeltaRow[] {
  return results.flatMap((r) =>
    r.deltas
      ? [
          {
            session: r.session.label,
            replayId: r.replayId,
            costUsd: cents(r.deltas.costUsd),
            latencyMs: Math.round(r.deltas.latencyMs),
          },
        ]
      : [],
  );
}

/** "+$0.0012" / "−$0.0030" / "$0". */
export function signedUsd(x: number): string {
  if (x === 0) return "$0";
  return `${x > 0 ? "+" : "−"}$${Math.abs(x).toFixed(4).replace(/0+$/, "").replace(/\.$/, "")}`;
}

/** "+120 ms" / "−40 ms" / "0 ms". */
export function signedMs(x: number): string {
  return x === 0 ? "0 ms" : `${x > 0 ? "+" : "−"}${Math.abs(x)} ms`;
}
