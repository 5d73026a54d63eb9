// ---------------------------------------------------------------------------
// Fixing a cluster: whether a member's branch still fails the way the cluster
// does, and the figures of a fix ("fixes M of N, breaks J of K control
// sessions") with the Wilson interval of the share fixed. Pure: the server
// reads the replays and their failed steps, this decides.
// ---------------------------------------------------------------------------
import { isFailedSession, type FailureStep } from "./signature";
import { passRate, type PassRate } from "./stats";

/**
 * How a fix's members are judged. `check`: the cluster's failing online check (its name) judges each branch,
 * passing is fixed. `run`: a cluster without a check is fixed when the branch runs to its end and no tool
 * call in it failed without a later successful call of the same tool (the failure rule clusters use).
 */
export type FixJudge = { kind: "check"; checkName: string } | { kind: "run" };

/** One replay of a fix as read: its status, its check verdicts, and (for the run judge) its failed steps. */
export type FixReplay = {
  sessionId: string;
  status: string;
  /** Whether the branch passed the experiment's checks (null: no verdict, or a check could not judge). */
  branchPassed: boolean | null;
  /** The branch's failed steps and its completed tool calls (what `isFailedSession` reads). */
  steps: readonly FailureStep[];
};

/** What a branch says: it passes (a member is fixed, a control session is kept), fails, cannot be told, or has not run yet. */
export type BranchVerdict = "passes" | "fails" | "undecided" | "pending";

const PENDING = new Set(["queued", "running", "waiting_for_agent"]);
/** Ended without reaching the run's end or being judged: no verdict either way. */
const UNDECIDED = new Set([
  "paused",
  "awaiting_approval",
  "stopped_on_divergence",
  "budget_exhausted",
  "cancelled",
  "abandoned",
]);

/** Whether the branch passes under the judge. */
export function branchVerdict(judge: FixJudge, r: Pick<FixReplay, "status" | "branchPassed" | "steps">): BranchVerdict {
  if (PENDING.has(r.status)) return "pending";
  if (UNDECIDED.has(r.status)) return "undecided";
  if (judge.kind === "check") {
    if (r.status !== "completed" && r.status !== "failed" && r.status !== "blocked") return "undecided";
    return r.branchPassed === null ? "undecided" : r.branchPassed ? "passes" : "fails";
  }
  if (r.status !== "completed") return r.status === "failed" || r.status === "blocked" ? "fails" : "undecided";
  return isFailedSession({ status: "completed" }, r.steps) ? "fails" : "passes";
}

export type FixSide = {
  /** Members fixed, or control sessions broken. */
  count: number;
  /** Sessions with a verdict: the N of "M of N". */
  judged: number;
  undecided: number;
  pending: number;
  /** count of judged, with its Wilson 95% interval. */
  rate: PassRate;
};

export type FixFigures = { members: FixSide; control: FixSide | null; done: boolean; sentence: string };

function side(verdicts: readonly BranchVerdict[], counted: BranchVerdict): FixSide {
  const count = verdicts.filter((v) => v === counted).length;
  const judged = verdicts.filter((v) => v === "passes" || v === "fails").length;
  return {
    count,
    judged,
    undecided: verdicts.filter((v) => v === "undecided").length,
    pending: verdicts.filter((v) => v === "pending").length,
    rate: passRate(count, judged),
  };
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

/** "fixes 5 of 5 (95% interval 57%–100%), breaks none of 3 control sessions". */
export function fixSentence(f: Omit<FixFigures, "sentence">): string {
  const m = f.members;
  const interval = m.rate.interval
    ? ` (95% interval ${percent(m.rate.interval.low)}–${percent(m.rate.interval.high)})`
    : "";
  const parts = [`fixes ${m.count} of ${m.judged}${interval}`];
  if (f.control) {
    const c = f.control;
    const noun = c.judged === 1 ? "control session" : "control sessions";
    parts.push(c.count === 0 ? `breaks none of ${c.judged} ${noun}` : `breaks ${c.count} of ${c.judged} ${noun}`);
  } else parts.push("no control sample");
  const open = m.pending + (f.control?.pending ?? 0);
  const unknown = m.undecided + (f.control?.undecided ?? 0);
  if (open > 0) parts.push(`${open} still running`);
  if (unknown > 0) parts.push(`${unknown} without a verdict`);
  return parts.join(", ");
}

/** The figures of a fix: members fixed (branch passes), control sessions broken (branch fails). */
export function fixFigures(
  judge: FixJudge,
  members: readonly FixReplay[],
  control: readonly FixReplay[] | null,
): FixFigures {
  const m = side(
    members.map((r) => branchVerdict(judge, r)),
    "passes",
  );
  const c =
    control === null
      ? null
      : side(
          control.map((r) => branchVerdict(judge, r)),
          "fails",
        );
  const figures = { members: m, control: c, done: m.pending === 0 && (c?.pending ?? 0) === 0 };
  return { ...figures, sentence: fixSentence(figures) };
}
