import Link from "next/link";
import { Badge } from "@/components/ui/Badge";
import type { trialSetView } from "@/lib/server/checks/counterfactual";
import { DivergenceStrip } from "./DivergenceStrip";
import { percent } from "./labels";
import { plural } from "@/lib/format";
import { Card } from "@/components/ui/Card";

type TrialSet = Awaited<ReturnType<typeof trialSetView>>;

/** Repeated trials of one branch: pass rate with its 95 % interval, a per-step divergence strip, first departures. */
export function TrialsView({ set }: { set: TrialSet }) {
  const { stats } = set;
  const maxFirst = Math.max(1, ...stats.firstDivergence.map((f) => f.count));
  return (
    <div className="space-y-6">
      <Card padding="lg" aria-label="Pass rate">
        <h2 className="text-base font-semibold text-slate-900">How often the branch passes its checks</h2>
        {stats.pass.n === 0 ? (
          <p className="mt-2 text-sm text-slate-600">
            {set.finished < set.n
              ? `No trial has a verdict yet (${set.finished} of ${set.n} finished).`
              : "No trial has a verdict: none had an outcome check it could be judged by. To get a pass rate, choose outcome checks in the replay form and run the trials again."}
          </p>
        ) : (
          <p className="mt-2 text-2xl font-semibold text-slate-900" data-testid="pass-rate">
            {stats.pass.successes} of {stats.pass.n} passed ({percent(stats.pass.rate)})
          </p>
        )}
        {stats.pass.n > 0 ? (
          <p className="mt-1 text-sm text-slate-600" data-testid="pass-interval">
            95% interval (Wilson): {percent(stats.pass.low)} – {percent(stats.pass.high)}.
            {set.basePassed === false ? " The base run failed these checks." : ""}
            {set.basePassed === true ? " The base run passed these checks." : ""}
            {stats.undecided > 0
              ? ` ${plural(stats.undecided, "trial")} without a verdict ${stats.undecided === 1 ? "is" : "are"} left out.`
              : ""}
          </p>
        ) : null}
        <div className="mt-3 h-3 w-full max-w-xl rounded bg-slate-100" aria-hidden>
          {stats.pass.rate !== null ? (
            <div className="relative h-3">
              <div
                className="absolute h-3 rounded bg-emerald-200"
                style={{ left: `${stats.pass.low * 100}%`, width: `${(stats.pass.high - stats.pass.low) * 100}%` }}
              />
              <div className="absolute h-3 w-0.5 bg-emerald-700" style={{ left: `${stats.pass.rate * 100}%` }} />
            </div>
          ) : null}
        </div>
      </Card>

      <Card padding="lg" aria-label="Divergence by step">
        <h2 className="text-base font-semibold text-slate-900">Where the trials departed from the base run</h2>
        <p className="mt-1 text-sm text-slate-600">
          Each cell is a base step, darker where more trials did something else there (an analyst&apos;s edit is the
          premise, not a departure).
        </p>
        <DivergenceStrip
          testId="divergence-strip"
          cellTestId="strip-cell"
          cells={stats.steps.map((s) => {
            const step = set.baseSteps[s.baseSeq];
            return {
              seq: s.baseSeq,
              rate: s.rate,
              title: `step ${s.baseSeq} ${step?.kind ?? ""} ${step?.name ?? ""}: ${s.diverged} of ${s.n} trials departed (${s.first} first departed here)`,
            };
          })}
        />
        <h3 className="mt-5 text-sm font-semibold text-slate-900">First departure</h3>
        {stats.n === 0 ? (
          <p className="mt-2 text-sm text-slate-600" data-testid="first-divergence-none">
            No trial has finished yet: each is counted here when it does.
          </p>
        ) : null}
        <ul className="mt-2 space-y-1 text-sm" data-testid="first-divergence-distribution">
          {stats.firstDivergence.map((f) => (
            <li key={String(f.baseSeq)} className="flex items-center gap-2">
              <span className="w-40 text-slate-600">
                {f.baseSeq === null
                  ? "never (followed the base)"
                  : `step ${f.baseSeq} · ${set.baseSteps[f.baseSeq]?.name ?? ""}`}
              </span>
              <span className="h-3 rounded bg-amber-500" style={{ width: `${(f.count / maxFirst) * 12}rem` }} />
              <span className="text-slate-700">
                {f.count} of {stats.n}
              </span>
            </li>
          ))}
        </ul>
      </Card>

      <Card padding="lg" aria-label="Trials">
        <h2 className="text-base font-semibold text-slate-900">Trials</h2>
        {/* Each cell keeps a gap to the next: on a phone "10" ran into "completed". */}
        <table className="mt-2 w-full text-sm [&_td]:pr-3 [&_td:last-child]:pr-0 [&_th]:pr-3">
          <thead className="text-left text-xs text-slate-500">
            <tr>
              <th className="py-1">#</th>
              <th>Status</th>
              <th>Checks</th>
              <th>First departure</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {set.trials.map((t) => (
              <tr key={t.replayId} className="border-t border-slate-100" data-testid="trial-row">
                <td className="py-1 font-mono text-xs">{(t.index ?? 0) + 1}</td>
                <td>{t.status.replaceAll("_", " ")}</td>
                <td>
                  {t.passed === null ? (
                    <Badge>no verdict</Badge>
                  ) : t.passed ? (
                    <Badge tone="good">passed</Badge>
                  ) : (
                    <Badge tone="bad">failed</Badge>
                  )}
                </td>
                <td className="text-slate-600">
                  {!t.settled ? "not finished" : t.firstDivergence === null ? "—" : `step ${t.firstDivergence}`}
                </td>
                <td className="text-right">
                  <Link
                    href={`/replays/${t.replayId}/compare`}
                    className="text-indigo-700 hover:underline"
                    aria-label={`Compare trial ${(t.index ?? 0) + 1} with the base run`}
                  >
                    Compare
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </div>
  );
}
