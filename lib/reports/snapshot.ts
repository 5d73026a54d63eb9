import type {
  AlignedPair,
  Comparability,
  Comparison,
  ComparisonMetrics,
  Evidence,
  EvidenceStrength,
  FirstDivergence,
  LiveCallRecord,
  Policy,
  StepSource,
  TextDiffPart,
} from "@/lib/replay";
import type { ValidityInput, ValiditySuggestion } from "./validity";
import { suggestValidity } from "./validity";

/**
 * The part of a replay view (lib/db/replays.ts `ReplayView`) a report is made
 * from. Structural, so the replays module's view is accepted as it is.
 */
export interface ReportSource {
  replay: {
    id: string;
    status: string;
    comparability: string | null;
    policyHash: string;
    policySnapshot: unknown;
    edits: unknown;
    createdAt: Date | string;
    finishedAt: Date | string | null;
    sessionId: string;
    policyVersion: { id: string; version: number; policyId: string; policyName: string } | null;
  };
  session: { id: string; title: string | null; externalId: string | null; agentName: string; adapter: string };
  evidence: Evidence;
  fixtures: readonly SnapshotFixture<Date | string>[];
  approvals: readonly {
    step: number;
    tool: string;
    decision: string;
    by: string;
    at: string | null;
    note?: string | null;
  }[];
  comparison: Comparison;
  /** Recorded answers the branch used that the session's newest stale check found changed (absent: none known). */
  staleRecordings?: StaleRecordingsUsed | null;
}

/** The recordings a branch used that a stale check found changed: its evidence rests on answers tools no longer give. */
export interface StaleRecordingsUsed {
  investigationId: string;
  checkedAt: string | null;
  used: { seq: number; baseSeq: number; tool: string; paths: string[] }[];
}

/** Which of a branch's steps answered from a recording that the stale check found changed (pure). */
export function staleRecordingsUsedBy(
  steps: readonly { seq: number; kind: string; baseSeq: number | null; source: string | null }[],
  check: {
    id: string;
    finishedAt: string | null;
    records: readonly { seq: number; tool: string; state: string; paths: string[] }[];
  },
): StaleRecordingsUsed {
  const stale = new Map(check.records.filter((r) => r.state === "stale").map((r) => [r.seq, r]));
  const used = steps.flatMap((step) => {
    const record = step.kind === "tool_call" && step.baseSeq !== null ? stale.get(step.baseSeq) : undefined;
    return record && step.source === "recorded"
      ? [{ seq: step.seq, baseSeq: record.seq, tool: record.tool, paths: [...record.paths] }]
      : [];
  });
  return { investigationId: check.id, checkedAt: check.finishedAt, used };
}

/** A fixture the branch used, as frozen into a report (its time a string); the source may still hold a Date. */
export type SnapshotFixture<When = string> = {
  id: string;
  toolName: string;
  callId: string | null;
  stepIdx: number | null;
  output: unknown;
  error: unknown;
  author: string;
  note: string;
  createdAt: When;
};

export type SnapshotLiveCall = LiveCallRecord;

/** A pair of the comparison as frozen into a report. */
export type SnapshotPair = AlignedPair;

/** Everything a report shows, frozen at creation so a shared report never changes under its reader. Version 1. */
export interface ReportSnapshot {
  version: 1;
  takenAt: string;
  session: { id: string; label: string; agentName: string; adapter: string };
  replay: {
    id: string;
    status: string;
    comparability: Comparability | null;
    createdAt: string;
    finishedAt: string | null;
    edits: unknown;
  };
  policy: {
    document: Policy;
    hash: string;
    version: { id: string; version: number; policyId: string; policyName: string } | null;
  };
  evidence: {
    strength: EvidenceStrength;
    stepsBySource: Partial<Record<StepSource, number>>;
    fixturesUsed: Evidence["fixturesUsed"];
    liveCalls: SnapshotLiveCall[];
    inputDrift: Evidence["inputDrift"];
    probes: Evidence["probes"];
  };
  fixtures: SnapshotFixture[];
  approvals: { step: number; tool: string; decision: string; by: string; at: string | null; note: string | null }[];
  comparison: {
    pairCount: number;
    counts: Record<AlignedPair["type"], number>;
    firstDivergence: FirstDivergence | null;
    metrics: ComparisonMetrics;
    finalOutputDiff: TextDiffPart[] | null;
    /** The pairs the report shows: the first divergence and the pinned ones, in comparison order. */
    pairs: SnapshotPair[];
  };
  pinnedPairs: string[];
  suggestedValidity: ValiditySuggestion;
  /** Stale recordings the branch used, when a stale check of its session found any (absent in older reports). */
  staleRecordings?: StaleRecordingsUsed | null;
}

const iso = (d: Date | string | null): string | null =>
  d === null ? null : typeof d === "string" ? d : d.toISOString();

const COMPARABILITY = new Set<Comparability>(["exact", "aligned", "diverged_but_comparable", "non_comparable"]);

export function sessionLabelOf(s: { title: string | null; externalId: string | null; id: string }): string {
  return s.title || s.externalId || s.id;
}

/** Pin ids that are not pairs of this comparison. */
export function unknownPins(comparison: Pick<Comparison, "pairs">, pinned: readonly string[]): string[] {
  const ids = new Set(comparison.pairs.map((p) => p.id));
  return pinned.filter((id) => !ids.has(id));
}

/** The validity suggestion for a replay (pure; see `suggestValidity`). */
export function suggestValidityFor(
  source: Pick<ReportSource, "replay" | "comparison" | "staleRecordings"> & {
    /** The input-drift list is not read (a page leaves it in the database). */
    evidence: Omit<ReportSource["evidence"], "inputDrift">;
  },
): ValiditySuggestion {
  return suggestValidityOf({
    replay: source.replay,
    evidence: source.evidence,
    firstDivergence: source.comparison.firstDivergence,
    pairBranchIndex: source.comparison.pairs.map((p) =>
      p.type === "removed" || p.type === "unreached" ? null : p.branchIndex,
    ),
    staleSteps: source.staleRecordings?.used.map((u) => u.seq) ?? [],
  });
}

/**
 * The validity suggestion from what it looks at of a comparison: its first
 * divergence and each pair's branch index (a kept comparison holds them, so a
 * page asks for no pair).
 */
export function suggestValidityOf(source: {
  replay: Pick<ReportSource["replay"], "status" | "comparability">;
  evidence: Pick<ReportSource["evidence"], "strength" | "fixturesUsed" | "probes" | "liveCalls">;
  firstDivergence: ValidityInput["firstDivergence"];
  pairBranchIndex: ValidityInput["pairBranchIndex"];
  staleSteps?: readonly number[];
}): ValiditySuggestion {
  const comparability = COMPARABILITY.has(source.replay.comparability as Comparability)
    ? (source.replay.comparability as Comparability)
    : null;
  return suggestValidity({
    status: source.replay.status,
    comparability,
    strength: source.evidence.strength,
    fixtureSteps: source.evidence.fixturesUsed.map((f) => f.step),
    firstDivergence: source.firstDivergence,
    pairBranchIndex: source.pairBranchIndex,
    probes: source.evidence.probes,
    liveModelSteps: source.evidence.liveCalls.filter((c) => c.kind === "model").length,
    staleSteps: source.staleSteps ?? [],
  });
}

/** A deep copy through JSON: the snapshot holds plain data only, detached from the source objects. */
function frozenCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Builds the immutable snapshot of a report from a replay view and the pinned
 * pair ids. Pure: the same inputs and clock give the same snapshot.
 */
export function buildReportSnapshot(source: ReportSource, pinnedPairs: readonly string[], now: Date): ReportSnapshot {
  const { comparison, evidence, replay, session } = source;
  const pinned = new Set(pinnedPairs);
  const firstId = comparison.firstDivergence?.id ?? null;
  const counts: Record<AlignedPair["type"], number> = { equal: 0, changed: 0, inserted: 0, removed: 0, unreached: 0 };
  for (const p of comparison.pairs) counts[p.type] += 1;
  const stepsBySource: Partial<Record<StepSource, number>> = {};
  for (const [k, v] of Object.entries(evidence.stepsBySource) as [StepSource, number][])
    if (v > 0) stepsBySource[k] = v;
  const comparability = COMPARABILITY.has(replay.comparability as Comparability)
    ? (replay.comparability as Comparability)
    : null;

  return frozenCopy<ReportSnapshot>({
    version: 1,
    takenAt: now.toISOString(),
    session: { id: session.id, label: sessionLabelOf(session), agentName: session.agentName, adapter: session.adapter },
    replay: {
      id: replay.id,
      status: replay.status,
      comparability,
      createdAt: iso(replay.createdAt) ?? now.toISOString(),
      finishedAt: iso(replay.finishedAt),
      edits: replay.edits ?? [],
    },
    policy: {
      document: (replay.policySnapshot ?? evidence.policy) as Policy,
      hash: replay.policyHash || evidence.policyHash,
      version: replay.policyVersion,
    },
    evidence: {
      strength: evidence.strength,
      stepsBySource,
      fixturesUsed: evidence.fixturesUsed,
      liveCalls: evidence.liveCalls,
      inputDrift: evidence.inputDrift,
      probes: evidence.probes,
    },
    fixtures: source.fixtures.map((f) => ({
      id: f.id,
      toolName: f.toolName,
      callId: f.callId,
      stepIdx: f.stepIdx,
      output: f.output ?? null,
      error: f.error ?? null,
      author: f.author,
      note: f.note,
      createdAt: iso(f.createdAt) ?? "",
    })),
    approvals: source.approvals.map((a) => ({
      step: a.step,
      tool: a.tool,
      decision: a.decision,
      by: a.by,
      at: a.at,
      note: a.note ?? null,
    })),
    comparison: {
      pairCount: comparison.pairs.length,
      counts,
      firstDivergence: comparison.firstDivergence,
      metrics: comparison.metrics,
      finalOutputDiff: comparison.finalOutputDiff,
      pairs: comparison.pairs.filter((p) => pinned.has(p.id) || p.id === firstId),
    },
    pinnedPairs: comparison.pairs.filter((p) => pinned.has(p.id)).map((p) => p.id),
    suggestedValidity: suggestValidityFor(source),
    staleRecordings: source.staleRecordings?.used.length ? source.staleRecordings : null,
  });
}

/** A stored snapshot read back: checked for its version, otherwise trusted (it was written by `buildReportSnapshot`). */
export function readSnapshot(value: unknown): ReportSnapshot | null {
  if (typeof value !== "object" || value === null || (value as { version?: unknown }).version !== 1) return null;
  return value as ReportSnapshot;
}
