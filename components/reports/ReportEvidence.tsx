import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { reportFigures } from "@/lib/comparison-words";
import { formatDateTime } from "@/lib/format";
import type { ReportDocument } from "@/lib/reports/export";

type Snapshot = ReportDocument["snapshot"];

function Delta({ n }: { n: number }) {
  if (n === 0) return <span className="text-slate-500">0</span>;
  return <span className={n > 0 ? "text-rose-700" : "text-emerald-700"}>{n > 0 ? `+${n}` : n}</span>;
}

/** Base, branch and change per metric, then the same figures in the comparison page's words. */
export function ComparisonMetrics({ metrics }: { metrics: Snapshot["comparison"]["metrics"] }) {
  const metricRows: [string, { base: number; branch: number; delta: number }][] = [
    ["Steps", metrics.steps],
    ["Tool calls", metrics.toolCalls],
    ["Errors", metrics.errors],
    ["Input tokens", metrics.inputTokens],
    ["Output tokens", metrics.outputTokens],
    ["Cost (USD)", metrics.costUsd],
    ["Latency (ms)", metrics.latencyMs],
  ];
  return (
    <ScrollFrame className="overflow-x-auto" label="Comparison metrics">
      <DataTable
        frame={false}
        dense
        className="max-w-2xl tabular-nums"
        columns={["Metric", numberColumn("Base"), numberColumn("Branch"), numberColumn("Δ")]}
      >
        {metricRows.map(([label, d]) => (
          <tr key={label}>
            <td className="py-1 text-slate-700">{label}</td>
            <td className="py-1 text-right">{d.base}</td>
            <td className="py-1 text-right">{d.branch}</td>
            <td className="py-1 text-right">
              <Delta n={d.delta} />
            </td>
          </tr>
        ))}
      </DataTable>
      {/* In the comparison page's words. */}
      <p className="mt-2 text-xs text-slate-600" data-testid="report-figures">
        {reportFigures(metrics).map(([words, value], i) => (
          <span key={words}>
            {i > 0 ? " · " : ""}
            {words} <span className="font-medium text-slate-900 tabular-nums">{value}</span>
          </span>
        ))}
      </p>
    </ScrollFrame>
  );
}

/** The final output, base to branch, with what the branch added and removed marked. */
export function FinalOutputDiff({ parts }: { parts: NonNullable<Snapshot["comparison"]["finalOutputDiff"]> }) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">Final output (base → branch)</h3>
      <p className="rounded border border-slate-200 bg-slate-50 px-3 py-2 text-sm leading-relaxed whitespace-pre-wrap">
        {parts.map((p, i) =>
          p.type === "equal" ? (
            <span key={i}>{p.value}</span>
          ) : p.type === "added" ? (
            <ins key={i} className="bg-emerald-100 text-emerald-900 no-underline">
              {p.value}
            </ins>
          ) : (
            <del key={i} className="bg-rose-100 text-rose-900">
              {p.value}
            </del>
          ),
        )}
      </p>
    </div>
  );
}

/** The analyst's fixtures: results in this branch supplied by hand, by whom and when. */
export function FixturesList({ fixtures }: { fixtures: Snapshot["fixtures"] }) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">Fixtures</h3>
      {fixtures.length === 0 ? (
        <p className="text-slate-500">No analyst fixtures: no result in this branch was supplied by hand.</p>
      ) : (
        <ul className="space-y-2">
          {fixtures.map((f) => (
            <li key={f.id} className="rounded-md border border-slate-200 p-3" data-testid="report-fixture">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-mono text-xs">{f.toolName}</span>
                {f.stepIdx !== null ? <Badge>step {f.stepIdx}</Badge> : null}
                <span className="text-slate-600">
                  by <span className="font-medium text-slate-900">{f.author}</span>, {formatDateTime(f.createdAt)}
                </span>
              </div>
              {f.note ? <p className="mt-1 text-slate-700">“{f.note}”</p> : null}
              <div className="mt-2">
                <JsonBlock value={f.error ?? f.output} name={`Fixture for ${f.toolName}`} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What ran against a live model or tool, and who approved it. */
export function LiveCallsList({ calls }: { calls: Snapshot["evidence"]["liveCalls"] }) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">Live calls</h3>
      {calls.length === 0 ? (
        <p className="text-slate-500">No live calls: nothing ran against a live model or tool.</p>
      ) : (
        <ul className="space-y-1">
          {calls.map((c) => (
            <li key={`${c.step}-${c.logEntryId}`}>
              step {c.step}: {c.kind} <span className="font-mono text-xs">{c.name}</span> —{" "}
              {c.approval
                ? `${c.approval.decision} by ${c.approval.by}${c.approval.note ? ` (“${c.approval.note}”)` : ""}`
                : "no approval required"}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Recorded answers the branch used that the tool no longer gives (from the last stale check). */
export function StaleRecordingsNote({ stale }: { stale: NonNullable<Snapshot["staleRecordings"]> }) {
  return (
    <div className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm" data-testid="report-stale">
      <p className="font-medium text-amber-900">
        The branch used {stale.used.length} recorded answer
        {stale.used.length === 1 ? "" : "s"} that the tool no longer gives
        {stale.checkedAt ? ` (stale check of ${formatDateTime(stale.checkedAt)})` : ""}:
      </p>
      <ul className="mt-1 list-disc pl-5 text-amber-900">
        {stale.used.map((u) => (
          <li key={u.seq}>
            step {u.seq}: <span className="font-mono text-xs">{u.tool}</span> (base step {u.baseSeq}) differs at{" "}
            {u.paths.join(", ") || "its answer"}
          </li>
        ))}
      </ul>
    </div>
  );
}
