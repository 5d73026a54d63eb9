import Link from "next/link";
import { Badge } from "@/components/ui/Badge";
import { BlameChart } from "./BlameChart";
import { StaleRecordCells } from "./StaleRecordCells";
import { Card } from "@/components/ui/Card";
import { DataTable } from "@/components/ui/DataTable";
import { Notice } from "@/components/ui/Notice";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { editWords } from "@/lib/reports/evidence";
import type { Edit } from "@/lib/replay";
import type {
  BlameProbeRecord,
  InvestigationView as View,
  MinimizeProbeRecord,
  StaleRecord,
} from "@/lib/server/investigations/investigations";

type BaseStep = { seq: number; name: string; kind: string };

const pct = (x: number) => `${Math.round(x * 100)}%`;

function editLabel(edit: Edit, baseSteps: readonly BaseStep[]): string {
  const step = baseSteps.find((s) => s.seq === edit.seq);
  return `${editWords(edit)}${step ? ` (${step.name})` : ""}`;
}

/** What the search found, in words, with the branch to open. */
function ResultNotice({ investigation, baseSteps }: { investigation: View; baseSteps: readonly BaseStep[] }) {
  const r = investigation.result as
    | { kind: "decided"; modelStep: number; baseSeq: number; replayId: string | null }
    | { kind: "not_fixable" | "not_fixing" | "cancelled" }
    | { kind: "minimal"; kept: number[]; edits: Edit[]; replayId: string | null }
    | null;
  if (investigation.status === "failed")
    return (
      <Notice tone="error" className="mb-6">
        The investigation stopped: {investigation.error?.message ?? "see the server log"}. The probes below were run.
      </Notice>
    );
  if (!r) {
    const { probes: done, of } = investigation.progress;
    return (
      <Notice tone="info" className="mb-6">
        <span data-testid="investigation-progress-text">
          {investigation.status === "queued"
            ? "Waiting for a worker…"
            : `Running: ${done} of at most ${of} probe${of === 1 ? "" : "s"} done.`}{" "}
          Each probe is a set of replays; probes appear below as they finish.
        </span>
        <ProgressBar label="Probes done" value={done} max={of} />
      </Notice>
    );
  }
  switch (r.kind) {
    case "decided": {
      const step = baseSteps.find((s) => s.seq === r.baseSeq);
      const probe = (investigation.probes as BlameProbeRecord[]).find((p) => p.modelStep === r.modelStep);
      return (
        <Notice tone="success" className="mb-6">
          <p data-testid="investigation-result">
            <strong>
              The failure is decided at model step {r.modelStep} (base step {r.baseSeq}
              {step ? `, ${step.name}` : ""}).
            </strong>{" "}
            With the model re-run live from there the run passed
            {probe ? ` in ${probe.passes} of ${probe.trials} trials` : ""}; from any later step it failed as recorded.
          </p>
          {r.replayId ? (
            <Link href={`/replays/${r.replayId}/compare`} className="mt-2 inline-block font-medium underline">
              Open the branch forked at that step
            </Link>
          ) : null}
        </Notice>
      );
    }
    case "not_fixable":
      return (
        <Notice tone="warning" className="mb-6">
          <p data-testid="investigation-result">
            Re-running the model live from its first step did not make the run pass: no decision of the model explains
            the failure. Look at the tool results and inputs it was given (an edit and a replay can test those).
          </p>
        </Notice>
      );
    case "minimal":
      return (
        <Notice tone="success" className="mb-6">
          <p data-testid="investigation-result">
            <strong>
              {r.edits.length} of {investigation.params.edits?.length ?? r.edits.length} edits are enough
            </strong>{" "}
            to pass the checks, and removing any one of them breaks the fix:
          </p>
          <ul className="mt-1 list-disc pl-5">
            {r.edits.map((e) => (
              <li key={`${e.seq}-${e.op}`}>{editLabel(e, baseSteps)}</li>
            ))}
          </ul>
          {r.replayId ? (
            <Link href={`/replays/${r.replayId}`} className="mt-2 inline-block font-medium underline">
              Open the minimal counterfactual
            </Link>
          ) : null}
        </Notice>
      );
    case "not_fixing":
      return (
        <Notice tone="warning" className="mb-6">
          <p data-testid="investigation-result">
            The branch&apos;s edits together did not pass the checks this time (a live model may answer differently), so
            there is nothing to minimise.
          </p>
        </Notice>
      );
    case "cancelled":
      return (
        <Notice tone="info" className="mb-6">
          <p data-testid="investigation-result">Stopped before it finished; the probes it ran are below.</p>
        </Notice>
      );
  }
}

function TrialLinks({ ids }: { ids: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {ids.map((id, k) => (
        <Link key={id} href={`/replays/${id}/compare`} className="text-indigo-700 hover:underline">
          {k + 1}
        </Link>
      ))}
    </span>
  );
}

/** A stale check: each recorded call checked, where its answer changed, and the tools left alone. */
function StaleView({ investigation }: { investigation: View }) {
  const records = investigation.probes as StaleRecord[];
  const r = investigation.result as { kind: string; stale: number; fresh: number; unchecked: number } | null;
  const skipped = investigation.params.skipped ?? [];
  return (
    <>
      {r?.kind === "checked" ? (
        <Notice tone={r.stale > 0 ? "warning" : "success"} className="mb-6">
          <p data-testid="investigation-result">
            {r.stale === 0
              ? `Every recording checked is still what its tool answers (${r.fresh} checked).`
              : `${r.stale} of ${records.length} recordings are stale: the tool answers differently today. Replays that used them say so.`}
            {r.unchecked > 0 ? ` ${r.unchecked} could not be checked (the tool was not reached).` : ""}
          </p>
        </Notice>
      ) : (
        <ResultNotice investigation={investigation} baseSteps={[]} />
      )}
      <p className="mb-4 text-sm text-slate-700" data-testid="investigation-bound">
        {investigation.estimate.liveToolCalls ?? 0} live tool calls, one per distinct recorded call.
        {investigation.params.volatile && investigation.params.volatile.length > 0
          ? ` Ignored: ${investigation.params.volatile.join(", ")}.`
          : ""}
      </p>
      <Card title="Recordings" padded={false}>
        {records.length === 0 ? (
          <p className="p-4 text-sm text-slate-600">No recording has been checked yet.</p>
        ) : (
          <DataTable frame={false} label="Recordings" columns={["Step", "Tool", "Today", "Differs at", "Ignored"]}>
            {records.map((rec) => (
              <tr key={rec.seq} data-testid="stale-row">
                <StaleRecordCells record={rec} cell="px-3 py-2" />
                <td className="px-3 py-2 font-mono text-xs">{rec.reason ?? (rec.paths.join(", ") || "—")}</td>
                <td className="px-3 py-2 font-mono text-xs text-slate-600">{rec.ignored.join(", ") || "—"}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
      {skipped.length > 0 ? (
        <p className="mt-4 text-sm text-slate-600" data-testid="stale-skipped">
          Not called: {skipped.map((k) => `${k.tool} (${k.reason})`).join("; ")}.
        </p>
      ) : null}
    </>
  );
}

/** The model step a finished blame search named, if it named one. */
function decidedAt(result: unknown): number | null {
  const r = result as { kind?: string; modelStep?: number } | null;
  return r?.kind === "decided" && typeof r.modelStep === "number" ? r.modelStep : null;
}

/** One probe of a blame search or a minimisation: what it ran, how many trials passed, the trials themselves. */
export interface ProbeRow {
  label: string;
  passes: number;
  trials: number;
  fixes: boolean;
  replayIds: string[];
}

/** The probes of a search in the order they finished (blame and minimise alike). */
export function ProbeTable({ what, probes }: { what: string; probes: readonly ProbeRow[] }) {
  if (probes.length === 0) return <p className="p-4 text-sm text-slate-600">No probe has finished yet.</p>;
  // Scrolls sideways inside its card on a narrow screen rather than widening the page (focusable for the keyboard).
  return (
    <ScrollFrame className="overflow-x-auto" label="Probes">
      <DataTable frame={false} label="Probes" columns={["#", what, "Passed", "Fix?", "Trials"]}>
        {probes.map((p, k) => (
          <tr key={k} data-testid="probe-row">
            <td className="px-3 py-2 tabular-nums">{k + 1}</td>
            <td className="px-3 py-2">{p.label}</td>
            <td className="px-3 py-2">
              <span className="flex items-center gap-2">
                <span className="tabular-nums">
                  {p.passes} of {p.trials}
                </span>
                <span className="h-2 w-24 rounded bg-slate-100" aria-hidden>
                  <span
                    className="block h-2 rounded bg-emerald-500"
                    style={{ width: pct(p.trials === 0 ? 0 : p.passes / p.trials) }}
                  />
                </span>
              </span>
            </td>
            <td className="px-3 py-2">
              {p.fixes ? <Badge tone="good">fixes</Badge> : <Badge tone="bad">fails</Badge>}
            </td>
            <td className="px-3 py-2">
              <TrialLinks ids={p.replayIds} />
            </td>
          </tr>
        ))}
      </DataTable>
    </ScrollFrame>
  );
}

/** A blame search's, a minimisation's or a stale check's bound, result and probes. */
export function InvestigationView({
  investigation,
  baseSteps,
}: {
  investigation: View;
  baseSteps: readonly BaseStep[];
}) {
  if (investigation.kind === "stale") return <StaleView investigation={investigation} />;
  const { estimate, params } = investigation;
  return (
    <>
      <ResultNotice investigation={investigation} baseSteps={baseSteps} />
      <p className="mb-4 text-sm text-slate-700" data-testid="investigation-bound">
        Bound stated before it started: at most {estimate.probes} probes × {estimate.trials} trials = {estimate.replays}{" "}
        replays and {estimate.maxLiveCalls} live model calls. A probe counts as a fix when at least {pct(params.share)}{" "}
        of its trials pass every check.
      </p>
      {investigation.kind === "blame" ? (
        <div className="mb-4">
          <BlameChart
            probes={investigation.probes as BlameProbeRecord[]}
            share={params.share}
            decidedAt={decidedAt(investigation.result)}
            running={investigation.status === "queued" || investigation.status === "running"}
          />
        </div>
      ) : null}
      <Card title="Probes" padded={false}>
        <ProbeTable
          what={investigation.kind === "blame" ? "Model live from" : "Edits kept"}
          probes={
            investigation.kind === "blame"
              ? (investigation.probes as BlameProbeRecord[]).map((p) => {
                  const step = baseSteps.find((s) => s.seq === p.baseSeq);
                  return {
                    ...p,
                    label: `model step ${p.modelStep} · base step ${p.baseSeq}${step ? ` · ${step.name}` : ""}`,
                  };
                })
              : (investigation.probes as MinimizeProbeRecord[]).map((p) => ({
                  ...p,
                  label: p.kept
                    .map((i) => (params.edits?.[i] ? editLabel(params.edits[i], baseSteps) : `edit ${i + 1}`))
                    .join("; "),
                }))
          }
        />
      </Card>
    </>
  );
}
