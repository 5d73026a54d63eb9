/**
 * What an experiment's members are doing, counted: finished, failed, waiting
 * for a fixture or an approval, running, queued. Pure, for the page and the API.
 * The run may be over (`completed`) while members still wait for a fixture; the
 * headline then says so instead of "completed".
 */

export interface ExperimentCounts {
  total: number;
  /** Reached an end other than failing: completed, stopped on divergence, out of budget, blocked. */
  finished: number;
  failed: number;
  waitingForFixture: number;
  waitingForApproval: number;
  running: number;
  queued: number;
}

export type ExperimentState =
  "pending" | "running" | "waiting_for_fixtures" | "waiting_for_approvals" | "completed" | "failed" | "cancelled";

export function countExperimentResults(results: readonly { status: string }[]): ExperimentCounts {
  const byStatus: Record<string, number> = {};
  for (const { status } of results) byStatus[status] = (byStatus[status] ?? 0) + 1;
  return countByStatus(byStatus);
}

/** The same counts from how many members have each status (what the experiment list reads, not every member). */
export function countByStatus(byStatus: Readonly<Record<string, number>>): ExperimentCounts {
  const counts: ExperimentCounts = {
    total: 0,
    finished: 0,
    failed: 0,
    waitingForFixture: 0,
    waitingForApproval: 0,
    running: 0,
    queued: 0,
  };
  for (const [status, n] of Object.entries(byStatus)) {
    counts.total += n;
    if (status === "failed") counts.failed += n;
    else if (status === "paused") counts.waitingForFixture += n;
    else if (status === "awaiting_approval") counts.waitingForApproval += n;
    else if (status === "running") counts.running += n;
    else if (status === "queued") counts.queued += n;
    else counts.finished += n;
  }
  return counts;
}

/**
 * The experiment's state for people: the run's own status, except that a run
 * that is over but has members waiting is not called completed.
 */
export function experimentState(runStatus: string, counts: ExperimentCounts): ExperimentState {
  if (runStatus === "pending" || runStatus === "running" || runStatus === "failed" || runStatus === "cancelled")
    return runStatus;
  if (counts.waitingForFixture > 0) return "waiting_for_fixtures";
  if (counts.waitingForApproval > 0) return "waiting_for_approvals";
  return "completed";
}

/** "5 finished · 1 failed · 3 waiting for a fixture" (only the parts that are not zero; "nothing yet" when none). */
export function describeCounts(c: ExperimentCounts): string {
  const parts = [
    c.finished > 0 ? `${c.finished} finished` : null,
    c.failed > 0 ? `${c.failed} failed` : null,
    c.waitingForFixture > 0 ? `${c.waitingForFixture} waiting for a fixture` : null,
    c.waitingForApproval > 0 ? `${c.waitingForApproval} waiting for an approval` : null,
    c.running > 0 ? `${c.running} running` : null,
    c.queued > 0 ? `${c.queued} queued` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? `${parts.join(" · ")} (of ${c.total})` : `nothing yet (of ${c.total})`;
}

/** `{ state, counts }` of an experiment, as the page and the API show them. */
export function experimentCountsOf(e: { status: string; results: readonly { status: string }[] }): {
  state: ExperimentState;
  counts: ExperimentCounts;
} {
  const counts = countExperimentResults(e.results);
  return { state: experimentState(e.status, counts), counts };
}
