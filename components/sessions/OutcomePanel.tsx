import Link from "next/link";

/**
 * A session's outcome on its page: what decided it and a link to the step to look at first; for the
 * demo data, how to ask "what if" with nothing configured.
 */
export function OutcomePanel({
  session: { id: sessionId, outcome, outcomeReason: reason, outcomeSeq: seq, demo },
  canReplay,
}: {
  session: {
    id: string;
    outcome: string | null;
    outcomeReason: string | null;
    outcomeSeq: number | null;
    demo: boolean;
  };
  canReplay: boolean;
}) {
  if (outcome !== "passed" && outcome !== "failed") return null;
  const failed = outcome === "failed";
  return (
    <section
      aria-label="Outcome"
      data-testid="session-outcome"
      data-outcome={outcome}
      className={`mb-4 rounded-md border px-4 py-3 text-sm ${failed ? "border-rose-200 bg-rose-50 text-rose-950" : "border-emerald-200 bg-emerald-50 text-emerald-950"}`}
    >
      <p>
        <span className="font-semibold">{failed ? "Task failed" : "Task passed"}</span>
        {reason ? `: ${reason}` : "."}{" "}
        {failed && seq !== null ? (
          <Link href={`/sessions/${sessionId}?step=${seq}`} className="font-medium underline">
            Open step {seq}
          </Link>
        ) : null}
      </p>
      {failed && demo && canReplay ? (
        <p className="mt-1 text-rose-900">
          Demo data: choose{" "}
          <Link href={`/sessions/${sessionId}/replay`} className="font-medium underline">
            Replay this session
          </Link>
          , edit a tool result and run fork-live: the built-in Demo model (scripted) answers from the edited result, no
          model endpoint needed.
        </p>
      ) : null}
    </section>
  );
}
