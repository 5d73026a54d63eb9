import Link from "next/link";
import { BarChartClient } from "@/components/charts/BarChartClient";
import { ChartFigure } from "@/components/charts/ChartFigure";
import type { ChartColor } from "@/components/charts/colors";
import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import type { Regressions } from "@/lib/server/clusters/regressions";
import { rateRows } from "./regression-rows";

const range = (r: { low: number; high: number }) => `${r.low}–${r.high}%`;

/** Pass rate per agent version with its 95% interval, drawn, then every figure in a table under it. */
export function VersionPassRates({ data }: { data: Regressions }) {
  const rows = rateRows(data.versions, (v) => v.version);
  const flagged = data.regressions.map((v) => v.version);
  return (
    <div className="flex flex-col gap-4">
      <ChartFigure
        id="version-pass-rate"
        title="Pass rate by agent version"
        summary={versionRatesSummary(rows, flagged)}
        empty={rows.length === 0 ? "This agent has no sessions yet." : undefined}
        columns={["Version", numberColumn("Passed"), numberColumn("Rate"), numberColumn("95% interval")]}
        rows={rows.map((r) => [r.name, `${r.passed} of ${r.total}`, `${r.rate}%`, range(r)])}
      >
        <RateBars rows={rows} axis="version" color="branch" />
      </ChartFigure>
      <DataTable
        label="Versions against the one before"
        columns={[
          "Version",
          "Against",
          numberColumn("Sessions"),
          numberColumn("Pass rate"),
          numberColumn("Change"),
          numberColumn("z"),
          "Verdict",
          "Clusters that grew most",
        ]}
      >
        {data.versions.map((v) => {
          const row = rows.find((r) => r.name === v.version);
          return (
            <tr key={v.agentVersionId} data-testid="version-row">
              <td className="px-3 py-2 font-mono text-xs">{v.version}</td>
              <td className="px-3 py-2 font-mono text-xs">{v.previous ?? "—"}</td>
              <td className="px-3 py-2 text-right tabular-nums">{v.total}</td>
              <td className="px-3 py-2 text-right tabular-nums">{row ? `${row.rate}% (${range(row)})` : "—"}</td>
              <td className="px-3 py-2 text-right tabular-nums">
                {v.regression?.drop != null
                  ? `${v.regression.drop > 0 ? "−" : "+"}${Math.abs(Math.round(v.regression.drop * 1000) / 10)} pts`
                  : "—"}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{v.regression ? v.regression.z.toFixed(2) : "—"}</td>
              <td className="px-3 py-2">
                {v.regression?.flagged ? (
                  <Badge
                    tone="bad"
                    title={v.regression.reasons
                      .map((r) => (r === "z_test" ? "two-proportion test at 95%" : "intervals apart"))
                      .join(", ")}
                  >
                    regression
                  </Badge>
                ) : v.regression ? (
                  <Badge>no regression</Badge>
                ) : (
                  "first version"
                )}
              </td>
              <td className="px-3 py-2">
                {v.grew.length === 0 ? (
                  "—"
                ) : (
                  <ul className="flex flex-col gap-1">
                    {v.grew.map((g) => (
                      <li key={g.clusterId}>
                        <Link href={`/failures/${g.clusterId}`} className="text-indigo-700 hover:underline">
                          {g.label}
                        </Link>{" "}
                        <span className="text-xs text-slate-600 tabular-nums">
                          {Math.round(g.before * 1000) / 10}% → {Math.round(g.after * 1000) / 10}%
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
    </div>
  );
}

/** Pass rate per day (UTC, every version together) with its 95% interval. */
export function DailyPassRates({ data }: { data: Regressions }) {
  const rows = rateRows(data.days, (d) => d.day);
  const worst = rows.reduce<(typeof rows)[number] | null>((w, r) => (w === null || r.rate < w.rate ? r : w), null);
  return (
    <ChartFigure
      id="daily-pass-rate"
      title="Pass rate by day"
      summary={
        worst
          ? `${rows.length} days; the lowest pass rate was on ${worst.name}: ${worst.passed} of ${worst.total} (${worst.rate}%, 95% interval ${range(worst)}).`
          : null
      }
      empty={rows.length === 0 ? "This agent has no sessions yet." : undefined}
      columns={["Day (UTC)", numberColumn("Passed"), numberColumn("Rate"), numberColumn("95% interval")]}
      rows={rows.map((r) => [r.name, `${r.passed} of ${r.total}`, `${r.rate}%`, range(r)])}
    >
      <RateBars rows={rows} axis="day" color="good" labels={rows.length <= 14} />
    </ChartFigure>
  );
}

/** Each online check's pass rate by version (its stored pass and fail verdicts), drawn, with the figures under it. */
export function CheckPassRates({ data }: { data: Regressions }) {
  if (data.checks.length === 0) return null;
  return (
    <div className="flex flex-col gap-6">
      {data.checks.map((check) => {
        const rows = rateRows(check.versions, (v) => v.version);
        return (
          <ChartFigure
            key={check.checkId}
            id={`check-pass-rate-${check.checkId}`}
            title={`Check “${check.name}”: pass rate by agent version`}
            summary={versionRatesSummary(rows, check.regressions)}
            empty={rows.length === 0 ? "No session has a pass or fail from this check yet." : undefined}
            columns={["Version", numberColumn("Passed"), numberColumn("Rate"), numberColumn("95% interval"), "Verdict"]}
            rows={rows.map((r) => {
              const v = check.versions.find((x) => x.version === r.name);
              return [
                r.name,
                `${r.passed} of ${r.total}`,
                `${r.rate}%`,
                range(r),
                v?.regression?.flagged ? "regression" : v?.regression ? "no regression" : "first version",
              ];
            })}
          >
            <RateBars rows={rows} axis="version" color="branch" />
          </ChartFigure>
        );
      })}
    </div>
  );
}

type RateRow = ReturnType<typeof rateRows>[number];

/** A pass-rate-by-version chart's words: each version's figures, then the versions flagged as regressions. */
function versionRatesSummary(rows: readonly RateRow[], flagged: readonly string[]): string {
  const figures = rows.map((r) => `${r.name}: ${r.passed} of ${r.total} passed (${r.rate}%, 95% interval ${range(r)})`);
  const verdict =
    flagged.length > 0 ? `Flagged as a regression: ${flagged.join(", ")}.` : "No version is flagged as a regression.";
  return `${figures.join("; ")}. ${verdict}`;
}

/** Pass rates as bars, one a row (`axis` names what a row is: a day, a version), each with its 95% interval. */
function RateBars({
  rows,
  axis,
  color,
  labels,
}: {
  rows: readonly RateRow[];
  axis: "day" | "version";
  color: ChartColor;
  labels?: boolean;
}) {
  return (
    <BarChartClient
      data={rows.map((r) => ({ [axis]: r.name, rate: r.rate, interval: r.interval }))}
      xKey={axis}
      bars={[{ key: "rate", name: "Passed", color, errorKey: "interval" }]}
      yDomain={[0, 100]}
      unit="%"
      labels={labels}
    />
  );
}
