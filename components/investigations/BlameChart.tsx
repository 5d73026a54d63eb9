import { BarChartClient } from "@/components/charts/BarChartClient";
import { ChartFigure } from "@/components/charts/ChartFigure";
import { numberColumn } from "@/components/ui/DataTable";
import type { BlameProbeRecord } from "@/lib/server/investigations/investigations";

/** Probes by model step (each step once: its latest probe), ascending. */
export function blameChartRows(probes: readonly BlameProbeRecord[]) {
  const byStep = new Map<number, BlameProbeRecord>();
  for (const p of probes) byStep.set(p.modelStep, p);
  return [...byStep.values()]
    .sort((a, b) => a.modelStep - b.modelStep)
    .map((p) => ({ ...p, percent: Math.round(p.passRate * 100) }));
}

/**
 * A blame search's pass rate by the model step it re-ran live from: one bar per probe as it finishes, the
 * share a fix needs as a line, and the deciding step marked.
 */
export function BlameChart({
  probes,
  share,
  decidedAt,
  running,
}: {
  probes: readonly BlameProbeRecord[];
  /** Share of trials that must pass for a probe to count as a fix (0–1). */
  share: number;
  /** The model step the search ended on, when it did. */
  decidedAt: number | null;
  running: boolean;
}) {
  const rows = blameChartRows(probes);
  const threshold = Math.round(share * 100);
  const decided = decidedAt === null ? -1 : rows.findIndex((r) => r.modelStep === decidedAt);
  return (
    <ChartFigure
      id="blame"
      title="Pass rate with the model live from each probed step"
      summary={`${rows
        .map((r) => `Model step ${r.modelStep} passed ${r.passes} of ${r.trials} (${r.percent}%)`)
        .join("; ")}. A probe is a fix at ${threshold}% or more${
        decidedAt !== null
          ? `; the failure is decided at model step ${decidedAt} (marked).`
          : running
            ? "; more probes to come."
            : "."
      }`}
      empty={
        rows.length === 0
          ? running
            ? "No probe has finished yet: each bar appears here as its probe finishes."
            : "No probe ran, so there is nothing to chart. Start a new blame search from the session."
          : undefined
      }
      columns={["Model live from", numberColumn("Passed"), numberColumn("Rate"), numberColumn("Fix?")]}
      rows={rows.map((r) => [
        `model step ${r.modelStep}${r.modelStep === decidedAt ? " (deciding step)" : ""}`,
        `${r.passes} of ${r.trials}`,
        `${r.percent}%`,
        r.fixes ? "fixes" : "fails",
      ])}
    >
      <BarChartClient
        data={rows.map((r) => ({
          step: `step ${r.modelStep}${r.modelStep === decidedAt ? " (decides)" : ""}`,
          percent: r.percent,
        }))}
        xKey="step"
        bars={[{ key: "percent", name: "Passed", color: "branch" }]}
        yDomain={[0, 100]}
        unit="%"
        referenceY={{ value: threshold, label: `fix at ${threshold}%` }}
        {...(decided >= 0 ? { highlight: { index: decided, color: "marked" as const } } : {})}
      />
    </ChartFigure>
  );
}
