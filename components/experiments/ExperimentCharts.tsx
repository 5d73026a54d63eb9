import { BarChartClient } from "@/components/charts/BarChartClient";
import { ChartFigure } from "@/components/charts/ChartFigure";
import { numberColumn } from "@/components/ui/DataTable";
import type { ToolCoverage } from "@/lib/replay";
import type { ExperimentDetail } from "@/lib/server/experiments/experiments";
import {
  deltaRows,
  divergenceHistogram,
  missRateRows,
  passRateRows,
  signedMs,
  signedUsd,
  type DeltaRow,
} from "./chart-data";
import { plural } from "@/lib/format";

function PassRateChart({ outcomes }: { outcomes: ExperimentDetail["summary"]["outcomes"] }) {
  const rows = outcomes ? passRateRows(outcomes) : [];
  const [base, branch] = rows;
  return (
    <ChartFigure
      id="pass-rate"
      title="Outcome pass rate, base runs vs branches"
      summary={
        base && branch
          ? `Base runs passed ${base.successes} of ${base.n} (${base.rate}%, 95% interval ${base.low}–${base.high}%); branches passed ${branch.successes} of ${branch.n} (${branch.rate}%, 95% interval ${branch.low}–${branch.high}%).`
          : null
      }
      empty={
        !outcomes
          ? "This experiment has no outcome checks, so nothing says which runs passed. Start a new experiment and choose checks on its form."
          : rows.length === 0
            ? "No session has a verdict on both its base run and its branch yet; the chart appears as branches finish."
            : undefined
      }
      columns={["Runs", numberColumn("Passed"), numberColumn("Rate"), numberColumn("95% interval")]}
      rows={rows.map((r) => [r.name, `${r.successes} of ${r.n}`, `${r.rate}%`, `${r.low}–${r.high}%`])}
    >
      <BarChartClient
        data={rows.map((r) => ({ name: r.name, rate: r.rate, interval: r.interval }))}
        xKey="name"
        bars={[{ key: "rate", name: "Passed", color: "branch", errorKey: "interval" }]}
        highlight={{ index: 0, color: "base" }}
        yDomain={[0, 100]}
        unit="%"
      />
    </ChartFigure>
  );
}

function DivergenceChart({ results }: { results: ExperimentDetail["results"] }) {
  const h = divergenceHistogram(results);
  const diverged = h.compared - h.never;
  return (
    <ChartFigure
      id="first-divergence"
      title="Where branches first diverge"
      summary={`Of ${plural(h.compared, "finished branch", "finished branches")}, ${h.never} never diverged from the base run${
        h.buckets.length > 0
          ? `; ${diverged} first diverged at ${h.buckets.map((b) => `step ${b.step} (${b.count})`).join(", ")}.`
          : "."
      }`}
      empty={
        h.compared === 0
          ? "No branch has finished yet: the histogram fills in as the members finish."
          : h.buckets.length === 0
            ? `Every one of the ${plural(h.compared, "finished branch", "finished branches")} matched its base run step for step: nothing diverged. Add an edit or a stricter policy to see where runs part.`
            : undefined
      }
      columns={["First divergence", numberColumn("Branches")]}
      rows={[...h.buckets.map((b) => [`step ${b.step}`, b.count]), ["never diverged", h.never]]}
    >
      <BarChartClient
        data={h.buckets.map((b) => ({ step: `step ${b.step}`, count: b.count }))}
        xKey="step"
        bars={[{ key: "count", name: "Branches", color: "warn" }]}
      />
    </ChartFigure>
  );
}

function MissRateChart({ tools }: { tools: readonly ToolCoverage[] }) {
  const rows = missRateRows(tools);
  const missing = rows.filter((r) => r.missed > 0);
  return (
    <ChartFigure
      id="miss-rate"
      title="Calls the policy could not answer, per tool"
      summary={
        missing.length === 0
          ? `No tool call missed: the policy answered all ${rows.reduce((n, r) => n + r.calls, 0)} calls of ${plural(rows.length, "tool")}.`
          : `${missing.map((r) => `${r.tool} missed ${r.missed} of ${r.calls} calls (${r.rate}%)`).join("; ")}${
              rows.length > missing.length
                ? `; the other ${plural(rows.length - missing.length, "tool")} never missed`
                : ""
            }.`
      }
      empty={
        rows.length === 0
          ? "No branch has called a tool yet. Once members finish, each tool's share of unanswered calls shows here."
          : missing.length === 0
            ? `No tool call missed: the policy answered all ${rows.reduce((n, r) => n + r.calls, 0)} calls of ${plural(rows.length, "tool")}. The policy coverage below lists which source answered each.`
            : undefined
      }
      columns={["Tool", numberColumn("Calls"), numberColumn("Missed"), numberColumn("Miss rate")]}
      rows={rows.map((r) => [r.tool, r.calls, r.missed, `${r.rate}%`])}
    >
      <BarChartClient
        data={rows.map((r) => ({ tool: r.tool, rate: r.rate }))}
        xKey="tool"
        bars={[{ key: "rate", name: "Miss rate", color: "bad" }]}
        yDomain={[0, 100]}
        unit="%"
      />
    </ChartFigure>
  );
}

const sum = (rows: readonly DeltaRow[], key: "costUsd" | "latencyMs") =>
  Math.round(rows.reduce((n, r) => n + r[key], 0) * 10_000) / 10_000;

function DeltaCharts({ results }: { results: ExperimentDetail["results"] }) {
  const rows = deltaRows(results);
  const none = "No branch has finished yet: each finished branch's cost and latency appear here.";
  // Why: a recorded answer is copied with the cost and the time it had, so only live calls move either.
  const same = (what: string, zero: string, why: string) =>
    `All ${plural(rows.length, "finished branch", "finished branches")} ${what} as their base runs (Δ ${zero}): ${why}. Live model or tool calls would show here.`;
  const costEmpty =
    rows.length === 0
      ? none
      : rows.every((r) => r.costUsd === 0)
        ? same("cost the same", "$0", "recorded answers cost what they cost then")
        : undefined;
  const latencyEmpty =
    rows.length === 0
      ? none
      : rows.every((r) => r.latencyMs === 0)
        ? same("took as long", "0 ms", "recorded answers take the time they took then")
        : undefined;
  const costTotal = sum(rows, "costUsd");
  const latencyTotal = sum(rows, "latencyMs");
  const table = rows.map((r) => [r.session, signedUsd(r.costUsd), signedMs(r.latencyMs)]);
  const columns = ["Session", numberColumn("Δ cost"), numberColumn("Δ latency")];
  return (
    <>
      <ChartFigure
        id="cost-delta"
        title="Cost, branch minus base (USD)"
        summary={`Over ${plural(rows.length, "finished branch", "finished branches")} the branches cost ${signedUsd(costTotal)} against their base runs: ${rows.map((r) => `${r.session} ${signedUsd(r.costUsd)}`).join(", ")}.`}
        empty={costEmpty}
        columns={columns}
        rows={table}
      >
        <BarChartClient
          data={rows.map((r) => ({ session: r.session, delta: r.costUsd }))}
          xKey="session"
          bars={[{ key: "delta", name: "Δ cost", color: "bad" }]}
          bySign={{ positive: "bad", negative: "good" }}
        />
      </ChartFigure>
      <ChartFigure
        id="latency-delta"
        title="Latency, branch minus base (ms)"
        summary={`Over ${plural(rows.length, "finished branch", "finished branches")} the branches took ${signedMs(latencyTotal)} against their base runs: ${rows.map((r) => `${r.session} ${signedMs(r.latencyMs)}`).join(", ")}.`}
        empty={latencyEmpty}
        columns={columns}
        rows={table}
      >
        <BarChartClient
          data={rows.map((r) => ({ session: r.session, delta: r.latencyMs }))}
          xKey="session"
          bars={[{ key: "delta", name: "Δ latency", color: "bad" }]}
          bySign={{ positive: "bad", negative: "good" }}
          unit=" ms"
        />
      </ChartFigure>
    </>
  );
}

/** The experiment in charts: pass rates, first divergences, misses per tool, cost and latency against the base. */
export function ExperimentCharts({
  experiment,
  coverage,
}: {
  experiment: Pick<ExperimentDetail, "summary" | "results">;
  coverage: { tools: readonly ToolCoverage[] };
}) {
  return (
    <section
      aria-labelledby="experiment-charts-heading"
      className="mb-6 grid gap-4 lg:grid-cols-2"
      data-testid="experiment-charts"
    >
      {/* Each chart's title is a level-3 heading: this is the level 2 above them (without it the page skipped one
          whenever no outcome check had put a level 2 before the charts). */}
      <h2 id="experiment-charts-heading" className="sr-only">
        Charts
      </h2>
      <PassRateChart outcomes={experiment.summary.outcomes} />
      <DivergenceChart results={experiment.results} />
      <MissRateChart tools={coverage.tools} />
      <DeltaCharts results={experiment.results} />
    </section>
  );
}
