import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { STEPS_BY_SOURCE_WORDS } from "@/lib/comparison-words";
import { editWords } from "@/lib/reports/evidence";
import type { PageEvidence, ReplayView } from "@/lib/db/replays";
import { formatDateTime } from "@/lib/format";
import { Card } from "@/components/ui/Card";

const STRENGTH_TONE = {
  recorded: "good",
  controlled: "info",
  simulated: "warn",
  live: "warn",
  drifting: "bad",
} as const;

/** What a branch's result rests on: the policy as run, its hash, evidence strength, step sources, fixtures and live calls. */
export function EvidencePanel({
  view,
}: {
  view: Pick<ReplayView, "replay" | "fixtures" | "approvals"> & { evidence: PageEvidence };
}) {
  const { replay, evidence } = view;
  const sources = Object.entries(evidence.stepsBySource).filter(([, n]) => n > 0);
  return (
    <Card
      padding="lg"
      className="@container"
      aria-labelledby="evidence-title"

      data-testid="evidence-panel"
    >
      <h2 id="evidence-title" className="text-base font-semibold text-slate-900">
        Evidence
      </h2>
      {/* Label beside value where the panel is wide enough, else above it: a badge such as "diverged but comparable"
          beside the longest label would run past a narrow panel and widen the page. */}
      <dl className="mt-3 grid grid-cols-1 gap-x-4 text-sm @sm:grid-cols-[max-content_1fr] @sm:gap-y-1.5">
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Status</dt>
        <dd>
          <StatusBadge status={replay.status} />
        </dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Comparability</dt>
        <dd>
          {replay.comparability ? (
            <Badge
              tone={
                replay.comparability === "exact" ? "good" : replay.comparability === "non_comparable" ? "bad" : "info"
              }
            >
              {replay.comparability.replaceAll("_", " ")}
            </Badge>
          ) : (
            "—"
          )}
        </dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Evidence strength</dt>
        <dd>
          <Badge tone={STRENGTH_TONE[evidence.strength]}>{evidence.strength}</Badge>
        </dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Policy</dt>
        <dd>
          {replay.policyVersion ? (
            <Link className="text-indigo-700 hover:underline" href={`/policies/${replay.policyVersion.policyId}`}>
              {replay.policyVersion.policyName} v{replay.policyVersion.version}
            </Link>
          ) : (
            <span>unsaved document (snapshot below)</span>
          )}
        </dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Policy hash</dt>
        <dd className="font-mono text-xs break-all">{replay.policyHash}</dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">{STEPS_BY_SOURCE_WORDS}</dt>
        <dd className="flex flex-wrap gap-1">
          {sources.length === 0
            ? "—"
            : sources.map(([source, n]) => (
                <Badge key={source}>
                  {source}: {n}
                </Badge>
              ))}
        </dd>
        <dt className="mt-1.5 text-slate-500 first:mt-0 @sm:mt-0">Edits</dt>
        <dd>{replay.edits.length === 0 ? "none" : replay.edits.map(editWords).join(", ")}</dd>
      </dl>

      <h3 className="mt-5 text-sm font-semibold text-slate-900">Fixtures</h3>
      {view.fixtures.length === 0 ? (
        <p className="text-sm text-slate-500">No fixtures: no tool output in this branch was supplied by hand.</p>
      ) : (
        <ul className="mt-1 space-y-1.5 text-sm" data-testid="evidence-fixtures">
          {view.fixtures.map((f) => (
            <li key={f.id} className="rounded border border-slate-200 px-3 py-2">
              <span className="font-mono">{f.toolName}</span> at step {f.stepIdx ?? "?"} ·{" "}
              {f.error ? <Badge tone="bad">error {f.error.type}</Badge> : <Badge>output</Badge>} · by{" "}
              <strong>{f.author}</strong>, {formatDateTime(f.createdAt)}
              <div className="text-slate-700">“{f.note}”</div>
            </li>
          ))}
        </ul>
      )}

      <h3 className="mt-5 text-sm font-semibold text-slate-900">Live calls and approvals</h3>
      {evidence.liveCalls.length === 0 && view.approvals.length === 0 ? (
        <p className="text-sm text-slate-500">
          No live calls: nothing in this branch ran against a real model or tool.
        </p>
      ) : (
        <ul className="mt-1 space-y-1.5 text-sm">
          {evidence.liveCalls.map((c) => (
            <li key={c.logEntryId} className="rounded border border-slate-200 px-3 py-2">
              {c.kind} <span className="font-mono">{c.name}</span> at step {c.step}{" "}
              {c.fromLog ? "(result from the branch log)" : ""}
              {c.approval ? (
                <span>
                  {" "}
                  · {c.approval.decision} by <strong>{c.approval.by}</strong>{" "}
                  {c.approval.at ? formatDateTime(c.approval.at) : ""}
                  {c.approval.note ? ` — “${c.approval.note}”` : ""}
                </span>
              ) : (
                <span className="text-slate-500"> · no approval needed (read-only)</span>
              )}
            </li>
          ))}
          {view.approvals
            .filter((a) => a.decision === "denied")
            .map((a) => (
              <li key={`${a.step}-${a.at}`} className="rounded border border-slate-200 px-3 py-2">
                denied <span className="font-mono">{a.tool}</span> at step {a.step} by <strong>{a.by}</strong>{" "}
                {a.at ? formatDateTime(a.at) : ""}
                {a.note ? ` — “${a.note}”` : ""}
              </li>
            ))}
        </ul>
      )}

      <details className="mt-5">
        <summary className="disclosure cursor-pointer text-sm font-semibold text-slate-900">
          Policy document as run
        </summary>
        <div className="mt-2">
          <JsonBlock value={replay.policySnapshot} />
        </div>
      </details>
    </Card>
  );
}
