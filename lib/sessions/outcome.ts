import { z } from "zod";

/**
 * A run's outcome: did it do its job? `status` says how a recording ended
 * (completed, failed, incomplete); the outcome says whether the run succeeded,
 * which a run can fail while "completing" (τ-bench scores a finished
 * conversation 0; an agent answers after a tool error it never got past).
 *
 * The rule, in this order (the first that applies decides):
 *
 * 1. The source's own verdict, when it gives one:
 *    - τ-bench (`metadata.source` "tau-bench") with a numeric `metadata.reward`:
 *      reward ≥ 1 is `passed`, anything lower `failed`;
 *    - any format: `metadata.outcome` "passed" or "failed" (a native document
 *      states its verdict this way), with `metadata.outcomeReason` as its reason.
 *    A failed verdict points at the step to look at first: the first unrecovered
 *    failed tool call (rule 3), else the last failed step, else the final answer.
 * 2. A recording that is still open (any step `incomplete`) is `unknown`.
 * 3. An unrecovered failed tool call makes the run `failed`: a `tool_call`
 *    with status `failed` and no LATER `tool_call` of the SAME tool name with
 *    status `completed` in the session. Arguments do not matter (a retry with
 *    corrected arguments is a recovery); a success of another tool is not one.
 *    The first such call is the one named.
 * 4. A run whose last step failed (a model error, an agent error the source
 *    recorded as a step) is `failed`, at that step.
 * 5. Otherwise `unknown`: the run finished, but nothing says whether it did
 *    its job (`passed` is only ever the source's word).
 */
export const Outcome = z.enum(["passed", "failed", "unknown"]);
export type Outcome = z.infer<typeof Outcome>;

/** What the rule reads of a step. */
export type OutcomeStep = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  error?: { type?: string; message?: string } | null;
};

export type SessionOutcome = {
  outcome: Outcome;
  /** One short sentence a reader sees beside the badge. */
  reason: string;
  /** The step to look at first, when there is one. */
  seq: number | null;
};

const REASON_CHARS = 200;

function clip(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > REASON_CHARS ? `${one.slice(0, REASON_CHARS - 1)}…` : one;
}

function errorText(step: OutcomeStep): string {
  const message = step.error?.message?.trim().replace(/[.;:]+$/, "");
  return message ? ` (${message})` : "";
}

/** The first failed tool call no later call of the same tool got past (rule 3). */
export function firstUnrecoveredToolFailure(steps: readonly OutcomeStep[]): OutcomeStep | null {
  const ordered = [...steps].sort((a, b) => a.seq - b.seq);
  // Walk backwards once: a tool name is "recovered" at a point when a completed call of it comes later.
  const succeededLater = new Set<string>();
  let first: OutcomeStep | null = null;
  for (let i = ordered.length - 1; i >= 0; i--) {
    const step = ordered[i]!;
    if (step.kind !== "tool_call") continue;
    if (step.status === "completed") succeededLater.add(step.name);
    else if (step.status === "failed" && !succeededLater.has(step.name)) first = step;
  }
  return first;
}

function sourceVerdict(metadata: unknown): { outcome: "passed" | "failed"; reason: string } | null {
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const m = metadata as Record<string, unknown>;
  if (m.source === "tau-bench" && typeof m.reward === "number" && Number.isFinite(m.reward)) {
    return m.reward >= 1
      ? { outcome: "passed", reason: `τ-bench scored the run ${m.reward}: the task's goal was reached.` }
      : { outcome: "failed", reason: `τ-bench scored the run ${m.reward}: the task's goal was not reached.` };
  }
  if (m.outcome === "passed" || m.outcome === "failed") {
    const given = typeof m.outcomeReason === "string" && m.outcomeReason.trim() !== "" ? m.outcomeReason : null;
    return {
      outcome: m.outcome,
      reason:
        given ??
        (m.outcome === "passed" ? "The source marked the run as passed." : "The source marked the run as failed."),
    };
  }
  return null;
}

/** A session's outcome by the rule above. */
export function sessionOutcome(session: { metadata: unknown; events: readonly OutcomeStep[] }): SessionOutcome {
  const steps = [...session.events].sort((a, b) => a.seq - b.seq);
  const unrecovered = firstUnrecoveredToolFailure(steps);
  const last = steps.at(-1);
  const lastFailed = [...steps].reverse().find((s) => s.status === "failed") ?? null;
  const verdict = sourceVerdict(session.metadata);
  if (verdict) {
    if (verdict.outcome === "passed") return { outcome: "passed", reason: clip(verdict.reason), seq: null };
    const final = [...steps].reverse().find((s) => s.kind === "final_output") ?? null;
    const at = unrecovered ?? lastFailed ?? final ?? last ?? null;
    return { outcome: "failed", reason: clip(verdict.reason), seq: at?.seq ?? null };
  }
  if (steps.some((s) => s.status === "incomplete"))
    return { outcome: "unknown", reason: "The recording is still open: some steps have not ended.", seq: null };
  if (unrecovered) {
    return {
      outcome: "failed",
      reason: clip(
        `${unrecovered.name} failed at step ${unrecovered.seq}${errorText(unrecovered)}; no later call of it succeeded.`,
      ),
      seq: unrecovered.seq,
    };
  }
  if (last && last.status === "failed") {
    return {
      outcome: "failed",
      reason: clip(`The run ended on a failed step: ${last.name} at step ${last.seq}${errorText(last)}.`),
      seq: last.seq,
    };
  }
  if (steps.length === 0) return { outcome: "unknown", reason: "The recording has no steps.", seq: null };
  return { outcome: "unknown", reason: "The run finished; the source gives no verdict on it.", seq: null };
}
