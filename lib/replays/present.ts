import type { ReplayView } from "@/lib/db/replays";
import type { PolicyIssue } from "@/lib/replay";

/** A replay as the HTTP API returns it (DESIGN §8). */
export function presentReplay(view: ReplayView, warnings?: readonly PolicyIssue[]) {
  const { replay } = view;
  return {
    id: replay.id,
    sessionId: replay.sessionId,
    status: replay.status,
    comparability: replay.comparability,
    policyHash: replay.policyHash,
    policyVersion: replay.policyVersion,
    policy: replay.policySnapshot,
    edits: replay.edits,
    createdBy: replay.createdBy,
    createdAt: replay.createdAt.toISOString(),
    finishedAt: replay.finishedAt?.toISOString() ?? null,
    error: replay.error,
    progress: replay.progress,
    cancelRequested: replay.cancelRequested,
    attempts: replay.attempts,
    steps: view.steps,
    evidence: view.evidence,
    pending: view.pending,
    fixtures: view.fixtures.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
    approvals: view.approvals,
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
  };
}

/** The aligned comparison with its base (DESIGN §5), with the evidence. */
export function presentComparison(view: ReplayView) {
  const { comparison } = view;
  return {
    replayId: view.replay.id,
    sessionId: view.session.id,
    status: view.replay.status,
    comparability: view.replay.comparability,
    policyHash: view.replay.policyHash,
    firstDivergence: comparison.firstDivergence,
    pairs: comparison.pairs.map((p) => ({
      id: p.id,
      type: p.type,
      baseSeq: p.type === "inserted" ? null : p.base.seq,
      branchSeq: p.type === "removed" ? null : p.branch.seq,
      base: p.type === "inserted" ? null : p.base,
      branch: p.type === "removed" ? null : p.branch,
      ...(p.type === "changed" ? { delta: p.delta } : {}),
    })),
    finalOutputDiff: comparison.finalOutputDiff,
    metrics: comparison.metrics,
    evidence: view.evidence,
    fixtures: view.fixtures.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
    approvals: view.approvals,
  };
}
