import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { COVERAGE_SOURCES, type Coverage, type CoverageSource } from "@/lib/replay";
import { Card } from "@/components/ui/Card";
import { MissesTable, UnusedCallsTable } from "./CoverageTables";

const SOURCE_LABEL: Record<CoverageSource, string> = {
  recorded: "recorded",
  static: "static",
  fixture: "fixture",
  live: "live",
  llm: "simulated",
  error_result: "error result",
  blocked: "blocked",
};

const SOURCE_TONE = {
  recorded: "good",
  static: "info",
  fixture: "info",
  live: "warn",
  llm: "warn",
  error_result: "bad",
  blocked: "bad",
} as const;

/**
 * What the policy covered: per tool, which source answered the calls, the
 * misses by reason (closest recorded call, differing argument paths) and the
 * recorded calls the branch never used. Closed until opened.
 */
export function CoveragePanel({
  coverage,
  csvHref,
  title = "Policy coverage",
  summary,
}: {
  coverage: Coverage;
  csvHref: string;
  title?: string;
  summary?: string;
}) {
  const calls = coverage.tools.reduce((n, t) => n + t.calls, 0);
  const misses = coverage.tools.reduce((n, t) => n + t.misses.reduce((m, g) => m + g.count, 0), 0);
  const unused = coverage.tools.reduce((n, t) => n + t.unused.length, 0);
  const multi = coverage.tools.some((t) => t.unused.some((u) => u.sessionId !== undefined));
  return (
    <Card as="details" padding="none" className="group mt-6" data-testid="coverage-panel">
      <summary className="flex cursor-pointer flex-wrap items-center gap-x-3 gap-y-1 px-5 py-3 select-none">
        <span className="text-base font-semibold text-slate-900">{title}</span>
        <span className="text-sm text-slate-600">
          {summary ? `${summary} · ` : ""}
          {calls} tool call{calls === 1 ? "" : "s"} · {misses} miss{misses === 1 ? "" : "es"} · {unused} recorded call
          {unused === 1 ? "" : "s"} never used
        </span>
        <span className="ml-auto text-xs text-slate-500 group-open:hidden">Show</span>
        <span className="ml-auto hidden text-xs text-slate-500 group-open:inline">Hide</span>
      </summary>
      <div className="space-y-5 border-t border-slate-100 px-5 py-4">
        <div className="flex justify-end">
          <a
            href={csvHref}
            download
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50"
          >
            Download CSV
          </a>
        </div>
        {coverage.tools.length === 0 ? (
          <p className="text-sm text-slate-600">Neither the base run nor the branch called a tool.</p>
        ) : (
          <DataTable
            label="Calls by source per tool"
            columns={["Tool", numberColumn("Calls"), "Answered by", numberColumn("Misses"), numberColumn("Never used")]}
          >
            {coverage.tools.map((t) => (
              <tr key={t.tool}>
                <td className="px-3 py-2 font-mono text-xs break-all text-slate-900">{t.tool}</td>
                <td className="px-3 py-2 text-right tabular-nums">{t.calls}</td>
                <td className="px-3 py-2">
                  <span className="flex flex-wrap gap-1">
                    {COVERAGE_SOURCES.filter((s) => t.bySource[s] > 0).map((s) => (
                      <Badge key={s} tone={SOURCE_TONE[s]}>
                        {SOURCE_LABEL[s]} {t.bySource[s]}
                      </Badge>
                    ))}
                    {t.edited > 0 ? <Badge>edited {t.edited}</Badge> : null}
                    {t.calls === 0 ? <span className="text-slate-500">not called</span> : null}
                  </span>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{t.misses.reduce((m, g) => m + g.count, 0)}</td>
                <td className="px-3 py-2 text-right tabular-nums">{t.unused.length}</td>
              </tr>
            ))}
          </DataTable>
        )}
        {coverage.tools.some((t) => t.misses.length > 0) ? <MissesTable coverage={coverage} /> : null}
        {unused > 0 ? <UnusedCallsTable coverage={coverage} multi={multi} /> : null}
      </div>
    </Card>
  );
}
