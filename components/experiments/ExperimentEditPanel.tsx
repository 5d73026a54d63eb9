import Link from "next/link";
import { Card } from "@/components/ui/Card";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { cohortEditArgsWords } from "@/lib/replay";
import type { ExperimentEdit } from "@/lib/server/experiments/experiments";

/** The other edits composed with the first (a cluster's fix may run several): each tool, its arguments and result. */
function MoreEdits({ edits }: { edits: ExperimentEdit["all"] }) {
  return (
    <ol className="mt-3 space-y-2 text-sm" aria-label="The other edits" data-testid="cohort-edit-more">
      {edits.map((e, i) => {
        const args = cohortEditArgsWords(e.args);
        return (
          <li key={i}>
            And every call of <code className="font-mono">{e.tool}</code>
            {args ? (
              <>
                {" "}
                with <code className="font-mono">{args}</code>
              </>
            ) : null}{" "}
            returns:
            <JsonBlock value={e.value} label={`Edited result of ${e.tool}`} />
          </li>
        );
      })}
    </ol>
  );
}

/** The edit an experiment applied across its cohort: what it changes, how many members it applied to, and why not the others. */
export function ExperimentEditPanel({ edit, total }: { edit: ExperimentEdit; total: number }) {
  const args = cohortEditArgsWords(edit.args);
  return (
    <Card title="Edit across the cohort" padding="md" className="mb-4">
      <p className="text-sm text-slate-800" data-testid="cohort-edit">
        Every call of <code className="font-mono">{edit.tool}</code>
        {args ? (
          <>
            {" "}
            with <code className="font-mono">{args}</code>
          </>
        ) : null}{" "}
        returns the result below. Applied to{" "}
        <strong className="tabular-nums">
          {edit.applied} of {total}
        </strong>{" "}
        member{total === 1 ? "" : "s"}
        {edit.notApplied.length > 0
          ? `; ${edit.notApplied.length === 1 ? "1 member has" : `${edit.notApplied.length} members have`} no matching call and ${edit.notApplied.length === 1 ? "was" : "were"} replayed without it.`
          : "."}
      </p>
      <div className="mt-2">
        <JsonBlock value={edit.value} label="Edited result" />
      </div>
      {edit.all.length > 1 ? <MoreEdits edits={edit.all.slice(1)} /> : null}
      {edit.notApplied.length > 0 ? (
        <ul className="mt-3 space-y-1 text-sm" aria-label="Members the edit did not apply to">
          {edit.notApplied.map((n) => (
            <li key={n.sessionId}>
              <Link href={`/sessions/${encodeURIComponent(n.sessionId)}`} className="text-indigo-700 underline">
                {n.label}
              </Link>
              : {n.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}
