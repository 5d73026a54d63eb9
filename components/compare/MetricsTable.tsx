import type { ComparisonMetrics, MetricDelta } from "@/lib/replay";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { COMPARISON_FIGURE_WORDS as WORDS } from "@/lib/comparison-words";
import { Card } from "@/components/ui/Card";

function fmt(n: number, money = false): string {
  return money ? `$${n.toFixed(4)}` : Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function Delta({ d, money }: { d: MetricDelta; money?: boolean }) {
  const tone = d.delta === 0 ? "text-slate-500" : d.delta > 0 ? "text-amber-700" : "text-emerald-700";
  return (
    <span className={`tabular-nums ${tone}`}>
      {d.delta === 0 ? "±0" : `${d.delta > 0 ? "+" : "−"}${fmt(Math.abs(d.delta), money)}`}
    </span>
  );
}

/** Base, branch and delta of each metric, plus the comparison's own figures. */
export function MetricsTable({
  metrics,
  labels = { base: "base", branch: "branch" },
}: {
  metrics: ComparisonMetrics;
  /** What the two columns are called (default: base and branch). */
  labels?: { base: string; branch: string };
}) {
  const rows: [string, MetricDelta, boolean?][] = [
    ["Steps", metrics.steps],
    ["Tool calls", metrics.toolCalls],
    ...Object.entries(metrics.toolCallsByTool).map(([name, d]): [string, MetricDelta] => [`  ${name}`, d]),
    ["Errors", metrics.errors],
    ["Input tokens", metrics.inputTokens],
    ["Output tokens", metrics.outputTokens],
    ["Cost", metrics.costUsd, true],
    ["Latency (ms)", metrics.latencyMs],
  ];
  return (
    <Card as="div" data-testid="metrics">
      <h2 className="mb-2 text-base font-semibold text-slate-900">Metrics</h2>
      {metrics.not_reached > 0 ? (
        <p className="mb-2 text-sm text-slate-600" data-testid="not-reached-note">
          The branch ended before {metrics.not_reached} base {metrics.not_reached === 1 ? "step" : "steps"}: they are
          not reached, and left out of both columns.
        </p>
      ) : null}
      <DataTable
        frame={false}
        dense
        columns={["metric", numberColumn(labels.base), numberColumn(labels.branch), numberColumn("delta")]}
      >
        {rows.map(([label, d, money]) => (
          <tr key={label} className="border-t border-slate-100">
            <td className={`py-1 ${label.startsWith("  ") ? "pl-4 font-mono text-xs" : ""}`}>{label.trim()}</td>
            <td className="py-1 text-right tabular-nums">{fmt(d.base, money)}</td>
            <td className="py-1 text-right tabular-nums">{fmt(d.branch, money)}</td>
            <td className="py-1 text-right">
              <Delta d={d} {...(money ? { money } : {})} />
            </td>
          </tr>
        ))}
      </DataTable>
      {/* Labels wrap beside their values on a phone; the API's keys stay what they are. */}
      <dl
        className="mt-3 grid grid-cols-[minmax(0,1fr)_auto] gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]"
        data-testid="comparison-figures"
      >
        <dt className="text-slate-500">{WORDS.first_divergence_step}</dt>
        <dd className="tabular-nums">{metrics.first_divergence_step ?? "none"}</dd>
        <dt className="text-slate-500">{WORDS.tool_sequence_distance}</dt>
        <dd className="tabular-nums">{metrics.tool_sequence_distance}</dd>
        <dt className="text-slate-500">{WORDS.fixture_dependency_count}</dt>
        <dd className="tabular-nums">{metrics.fixture_dependency_count}</dd>
        <dt className="text-slate-500">{WORDS.tool_argument_changed}</dt>
        <dd>{metrics.tool_argument_changed ? "yes" : "no"}</dd>
      </dl>
    </Card>
  );
}
