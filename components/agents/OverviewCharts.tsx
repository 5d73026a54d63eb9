import { BarChartClient } from "@/components/charts/BarChartClient";
import { ChartFigure } from "@/components/charts/ChartFigure";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { formatCost, formatDuration, plural } from "@/lib/format";
import type { OverviewRow } from "@/lib/db/agent-overview";
import { totalsByDay } from "@/lib/agents/overview-days";

const usd = (n: number) => `$${n.toFixed(n !== 0 && n < 0.01 ? 4 : 2)}`;
const ms = (n: number | null) => (n === null ? "—" : `${n} ms`);

/** Runs and failed runs per day (UTC), every version shown together. */
export function RunsChart({ rows }: { rows: readonly OverviewRow[] }) {
  const days = totalsByDay(rows);
  const runs = days.reduce((n, d) => n + d.runs, 0);
  const failed = days.reduce((n, d) => n + d.failed, 0);
  return (
    <ChartFigure
      id="overview-runs"
      title="Runs and failures per day"
      summary={`${plural(runs, "run")} over ${plural(days.length, "day")} with runs; ${failed} failed (${runs ? Math.round((failed / runs) * 1000) / 10 : 0}%).`}
      columns={["Day (UTC)", numberColumn("Runs"), numberColumn("Failed")]}
      rows={days.map((d) => [d.day, d.runs, d.failed])}
    >
      <BarChartClient
        data={days.map((d) => ({ day: d.day, runs: d.runs, failed: d.failed }))}
        xKey="day"
        bars={[
          { key: "runs", name: "Runs", color: "branch" },
          { key: "failed", name: "Failed", color: "bad" },
        ]}
        labels={days.length <= 10}
      />
    </ChartFigure>
  );
}

/** Cost per day (UTC) in US dollars, every version together. */
export function CostChart({ rows }: { rows: readonly OverviewRow[] }) {
  const days = totalsByDay(rows);
  const total = Math.round(days.reduce((n, d) => n + d.costUsd, 0) * 1e6) / 1e6;
  return (
    <ChartFigure
      id="overview-cost"
      title="Cost per day"
      summary={`${usd(total)} in all over ${plural(days.length, "day")} with runs.`}
      columns={["Day (UTC)", numberColumn("Cost (USD)")]}
      rows={days.map((d) => [d.day, usd(d.costUsd)])}
    >
      <BarChartClient
        data={days.map((d) => ({ day: d.day, cost: Math.round(d.costUsd * 100) / 100 }))}
        xKey="day"
        bars={[{ key: "cost", name: "Cost (USD)", color: "warn" }]}
        labels={days.length <= 10}
      />
    </ChartFigure>
  );
}

/** Tokens per day (UTC), input and output, every version together. */
export function TokensChart({ rows }: { rows: readonly OverviewRow[] }) {
  const days = totalsByDay(rows);
  const input = days.reduce((n, d) => n + d.inputTokens, 0);
  const output = days.reduce((n, d) => n + d.outputTokens, 0);
  return (
    <ChartFigure
      id="overview-tokens"
      title="Tokens per day"
      summary={`${input} input and ${output} output tokens over ${plural(days.length, "day")} with runs.`}
      columns={["Day (UTC)", numberColumn("Input"), numberColumn("Output")]}
      rows={days.map((d) => [d.day, d.inputTokens, d.outputTokens])}
    >
      <BarChartClient
        data={days.map((d) => ({ day: d.day, input: d.inputTokens, output: d.outputTokens }))}
        xKey="day"
        bars={[
          { key: "input", name: "Input tokens", color: "base" },
          { key: "output", name: "Output tokens", color: "branch" },
        ]}
        labels={days.length <= 6}
      />
    </ChartFigure>
  );
}

/** Duration p50 and p95 per day and version: percentiles do not add up, so each version keeps its own bar. */
export function LatencyChart({ rows }: { rows: readonly OverviewRow[] }) {
  const timed = rows.filter((r) => r.p50Ms !== null);
  const versions = new Set(rows.map((r) => r.version));
  const label = (r: OverviewRow) => (versions.size > 1 ? `${r.day} · ${r.version}` : r.day);
  const slowest = timed.reduce<OverviewRow | null>((w, r) => (w === null || r.p95Ms! > w.p95Ms! ? r : w), null);
  return (
    <ChartFigure
      id="overview-latency"
      title="Duration p50 and p95 per day and version"
      summary={
        slowest
          ? `The slowest p95 was ${formatDuration(slowest.p95Ms)} on ${slowest.day} (version ${slowest.version}).`
          : null
      }
      empty={timed.length === 0 ? "No run in this range recorded how long it took." : undefined}
      columns={["Day (UTC)", "Version", numberColumn("p50"), numberColumn("p95")]}
      rows={rows.map((r) => [r.day, r.version, ms(r.p50Ms), ms(r.p95Ms)])}
    >
      <BarChartClient
        data={timed.map((r) => ({ name: label(r), p50: Math.round(r.p50Ms!), p95: Math.round(r.p95Ms!) }))}
        xKey="name"
        bars={[
          { key: "p50", name: "p50", color: "good" },
          { key: "p95", name: "p95", color: "marked" },
        ]}
        unit=" ms"
        labels={timed.length <= 5}
      />
    </ChartFigure>
  );
}

/** Every figure, one row per day and version. */
export function OverviewTable({ rows }: { rows: readonly OverviewRow[] }) {
  const right = (label: string) => ({ label, align: "right" as const, nowrap: true });
  return (
    <DataTable
      label="Runs per day and version"
      dense
      columns={[
        { label: "Day (UTC)", nowrap: true },
        "Version",
        right("Runs"),
        right("Failed"),
        right("Cost"),
        right("p50"),
        right("p95"),
        right("Input tokens"),
        right("Output tokens"),
      ]}
    >
      {rows.map((r) => (
        <tr key={`${r.day} ${r.version}`} data-testid="overview-row" className="tabular-nums">
          <td className="px-3 py-1.5 whitespace-nowrap">{r.day}</td>
          <td className="px-3 py-1.5 font-mono text-xs">{r.version}</td>
          <td className="px-3 py-1.5 text-right">{r.runs}</td>
          <td className="px-3 py-1.5 text-right">{r.failed}</td>
          <td className="px-3 py-1.5 text-right">{r.costUsd ? formatCost(r.costUsd) : "$0"}</td>
          <td className="px-3 py-1.5 text-right">{formatDuration(r.p50Ms)}</td>
          <td className="px-3 py-1.5 text-right">{formatDuration(r.p95Ms)}</td>
          <td className="px-3 py-1.5 text-right">{r.inputTokens}</td>
          <td className="px-3 py-1.5 text-right">{r.outputTokens}</td>
        </tr>
      ))}
    </DataTable>
  );
}
