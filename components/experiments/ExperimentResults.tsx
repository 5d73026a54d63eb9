import Link from "next/link";
import { Badge, StatusBadge, type Tone } from "@/components/ui/Badge";
import type { ExperimentDetail } from "@/lib/server/experiments/experiments";
import { CardTable, numberColumn } from "@/components/ui/DataTable";
import { Card } from "@/components/ui/Card";

const COMPARABILITY: { key: string; label: string; tone: Tone }[] = [
  { key: "exact", label: "exact", tone: "good" },
  { key: "aligned", label: "aligned", tone: "info" },
  { key: "diverged_but_comparable", label: "diverged but comparable", tone: "warn" },
  { key: "non_comparable", label: "non-comparable", tone: "bad" },
];
const TONE_OF: Record<string, Tone> = Object.fromEntries(COMPARABILITY.map((c) => [c.key, c.tone]));

/** "N of M exact" and the other comparability and status counts. */
export function ExperimentSummary({ summary }: { summary: ExperimentDetail["summary"] }) {
  const statuses = Object.entries(summary.byStatus).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section
      aria-label="Summary"
      className="mb-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-4"
      data-testid="experiment-summary"
    >
      {COMPARABILITY.map((c) => {
        const n = summary.byComparability[c.key] ?? 0;
        return (
          <Card as="div" padding="sm" key={c.key}>
            <div className="text-lg font-semibold tabular-nums text-slate-900">
              {n} of {summary.total} {c.label}
            </div>
            <div className="text-xs text-slate-500">comparability of the finished branches</div>
          </Card>
        );
      })}
      {summary.outcomes ? <OutcomePanel outcomes={summary.outcomes} /> : null}
      <div className="flex flex-wrap items-center gap-2 text-sm text-slate-600 sm:col-span-2 lg:col-span-4">
        <span>Replay status:</span>
        {statuses.map(([status, n]) => (
          <span key={status} className="inline-flex items-center gap-1">
            <span className="tabular-nums">{n}</span> <StatusBadge status={status} />
          </span>
        ))}
      </div>
    </section>
  );
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

function Rate({ label, rate }: { label: string; rate: NonNullable<ExperimentDetail["summary"]["outcomes"]>["base"] }) {
  return (
    <div>
      <div className="text-xs text-slate-600">{label}</div>
      <div className="text-lg font-semibold text-slate-900 tabular-nums">
        {rate.rate === null ? "—" : percent(rate.rate)}{" "}
        <span className="text-xs font-normal text-slate-600">
          {rate.successes} of {rate.n}
          {rate.n > 0 ? ` · 95% interval ${percent(rate.low)}–${percent(rate.high)}` : ""}
        </span>
      </div>
    </div>
  );
}

/** Pass rates of the base runs and the branches under the experiment's checks, and how many moved each way. */
function OutcomePanel({ outcomes }: { outcomes: NonNullable<ExperimentDetail["summary"]["outcomes"]> }) {
  const moves = [
    { n: outcomes.fixed, label: "failed → passed", tone: "good" as Tone },
    { n: outcomes.broke, label: "passed → failed", tone: "bad" as Tone },
    { n: outcomes.stillPassing, label: "passed both", tone: "neutral" as Tone },
    { n: outcomes.stillFailing, label: "failed both", tone: "neutral" as Tone },
  ];
  return (
    <Card
      as="div"
      padding="sm"
      className="sm:col-span-2 lg:col-span-4"

      data-testid="experiment-outcomes"
    >
      <h2 className="text-sm font-semibold text-slate-900">
        Outcome checks <span className="font-normal text-slate-600">({outcomes.checks.join(", ")})</span>
      </h2>
      <div className="mt-2 flex flex-wrap items-end gap-x-10 gap-y-2">
        <Rate label="Base runs passed" rate={outcomes.base} />
        <Rate label="Branches passed" rate={outcomes.branch} />
        <div className="flex flex-wrap gap-2 text-sm">
          {moves.map((m) => (
            <span key={m.label} className="inline-flex items-center gap-1">
              <span className="tabular-nums">{m.n}</span> <Badge tone={m.tone}>{m.label}</Badge>
            </span>
          ))}
        </div>
      </div>
      {outcomes.unjudged > 0 ? (
        <p className="mt-2 text-xs text-slate-600">
          {outcomes.unjudged} session{outcomes.unjudged === 1 ? " has" : "s have"} no verdict yet (still running,
          waiting for a fixture, or a check that could not be evaluated) and {outcomes.unjudged === 1 ? "is" : "are"}{" "}
          not counted.
        </p>
      ) : null}
    </Card>
  );
}

const word = (passed: boolean | null) => (passed === null ? "—" : passed ? "passed" : "failed");

/** One row per cohort session: the replay's status, comparability, evidence strength, first divergence and its comparison. */
export function ExperimentResultTable({
  results,
  checked = false,
}: {
  results: ExperimentDetail["results"];
  /** The experiment has outcome checks: show each session's verdicts. */
  checked?: boolean;
}) {
  return (
    <CardTable
      columns={[
        "Session",
        "Replay",
        "Comparability",
        "Evidence",
        "First divergence",
        ...(checked ? ["Outcome"] : []),
        numberColumn("Comparison"),
      ]}
    >
      {results.map((r) => (
        <tr
          key={r.replayId}
          className="border-t border-slate-100 align-top hover:bg-slate-50"
          data-testid="experiment-result"
        >
          <td className="px-3 py-2">
            <Link href={`/sessions/${r.session.id}`} className="font-medium text-indigo-700 hover:underline">
              {r.session.label}
            </Link>
            <Link
              href={`/sessions/${r.session.id}/investigate`}
              className="block text-xs text-indigo-700 hover:underline"
              aria-label={`Investigate ${r.session.label}`}
            >
              Investigate
            </Link>
          </td>
          <td className="px-3 py-2">
            {r.status === "queued" ? (
              <Badge>queued</Badge>
            ) : (
              <Link href={`/replays/${r.replayId}`} aria-label={`Replay of ${r.session.label}`}>
                <StatusBadge status={r.status} />
              </Link>
            )}
            {r.error ? (
              <div className="mt-1 max-w-xs text-xs text-rose-700" title={r.error.message}>
                {r.error.message.length > 140 ? `${r.error.message.slice(0, 140)}…` : r.error.message}
              </div>
            ) : null}
          </td>
          <td className="px-3 py-2">
            {r.comparability ? (
              <Badge tone={TONE_OF[r.comparability] ?? "neutral"}>{r.comparability.replaceAll("_", " ")}</Badge>
            ) : (
              "—"
            )}
          </td>
          <td className="px-3 py-2">{r.evidenceStrength ? <Badge>{r.evidenceStrength}</Badge> : "—"}</td>
          <td className="px-3 py-2 text-slate-700">
            {r.firstDivergence ? (
              <span title={r.firstDivergence.summary}>
                step {r.firstDivergence.pairIndex}{" "}
                <span className="text-xs text-slate-500">· {r.firstDivergence.summary}</span>
              </span>
            ) : r.comparability === "exact" ? (
              <span className="text-slate-500">none</span>
            ) : (
              "—"
            )}
          </td>
          {checked ? (
            <td className="px-3 py-2 whitespace-nowrap text-slate-700" data-testid="experiment-outcome">
              {r.outcome.base === null && r.outcome.branch === null
                ? "—"
                : `${word(r.outcome.base)} → ${word(r.outcome.branch)}`}
            </td>
          ) : null}
          <td className="px-3 py-2 text-right">
            {r.status === "queued" || r.status === "running" ? (
              <span className="text-slate-500">—</span>
            ) : (
              <Link
                href={`/replays/${r.replayId}/compare`}
                className="text-indigo-700 hover:underline"
                aria-label={`Compare ${r.session.label} with its branch`}
              >
                Compare →
              </Link>
            )}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}
