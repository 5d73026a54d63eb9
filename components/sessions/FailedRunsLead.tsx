import Link from "next/link";
import { plural } from "@/lib/format";

/** Where an analyst starts: how many runs failed, and a link to the most recent with a failed outcome, at its step. */
export function FailedRunsLead({
  count,
  first,
}: {
  count: number;
  first: { id: string; title: string | null; outcomeReason: string | null; outcomeSeq: number | null } | null;
}) {
  if (count === 0) return null;
  return (
    <p
      className="mb-4 rounded-md border border-rose-200 bg-rose-50 px-4 py-2 text-sm text-rose-950"
      data-testid="failed-runs-lead"
    >
      <Link href="/sessions?status=failed" className="font-semibold underline">
        {plural(count, "failed run")}
      </Link>
      {first ? (
        <>
          {" "}
          — start with{" "}
          <Link
            href={`/sessions/${first.id}${first.outcomeSeq === null ? "" : `?step=${first.outcomeSeq}`}`}
            className="font-medium text-rose-800 underline"
            data-testid="failed-run-start"
          >
            {first.title ?? "the most recent one"}
          </Link>
          {first.outcomeReason ? <span className="text-rose-900">: {first.outcomeReason}</span> : null}
        </>
      ) : null}
    </p>
  );
}
