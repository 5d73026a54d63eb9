/**
 * Wider history (cohort_version and agent scopes): what the injected lookup
 * returns, and which of its candidates answers a call.
 */
import type { EventStatus } from "./events";

/** The completed recording outside the base session that answered a call (cohort_version or agent scope). */
export interface HistoryMatch {
  sessionId: string;
  seq: number;
  output: unknown;
  status: "completed";
}

/** A recorded call with the same tool and cache key, somewhere in the agent's history. */
export interface HistoryCandidate {
  sessionId: string;
  seq: number;
  output: unknown;
  status: EventStatus;
  /** Whether its session is itself a replay (replays never answer history). */
  isReplay: boolean;
  /** The agent version that recorded its session, for cohort membership. */
  agentVersionId: string | null;
  /** When its session was recorded (ISO 8601); the newest answers. */
  recordedAt: string | null;
}

/**
 * Returns the recorded calls with this tool name and cache key that the
 * scope could draw on (`agent`: the agent's sessions; `cohort_version`: the
 * cohort's agent version), in any order. The engine applies the scope's
 * meaning itself (see `pickHistoryMatch`): completed calls only, replay
 * sessions excluded, cohort membership, newest first.
 */
export type HistoryLookup = (query: {
  scope: "cohort_version" | "agent";
  tool: string;
  cacheKey: string;
  args: unknown;
}) => Promise<readonly HistoryCandidate[]>;

/** The experiment's cohort: the agent version it runs over, optionally narrowed to chosen sessions. */
export interface HistoryCohort {
  agentVersionId: string;
  sessionIds?: readonly string[];
}

/**
 * The scope semantics of Kitaru's wider history (so exported policies mean the
 * same there), in one place: among the
 * candidates, only completed calls of sessions that are not replays (and, for
 * `cohort_version`, that belong to the cohort) count, and the newest answers
 * (latest `recordedAt`, then the later call in the session).
 */
export function pickHistoryMatch(
  scope: "cohort_version" | "agent",
  candidates: readonly HistoryCandidate[],
  cohort: HistoryCohort | null,
): HistoryMatch | null {
  if (scope === "cohort_version" && !cohort) return null;
  const members = cohort?.sessionIds ? new Set(cohort.sessionIds) : null;
  let best: HistoryCandidate | null = null;
  for (const c of candidates) {
    if (c.status !== "completed" || c.isReplay) continue;
    if (
      scope === "cohort_version" &&
      (c.agentVersionId !== cohort!.agentVersionId || (members && !members.has(c.sessionId)))
    )
      continue;
    if (best === null || newer(c, best)) best = c;
  }
  return best ? { sessionId: best.sessionId, seq: best.seq, output: best.output, status: "completed" } : null;
}

function newer(a: HistoryCandidate, b: HistoryCandidate): boolean {
  const at = a.recordedAt ?? "";
  const bt = b.recordedAt ?? "";
  if (at !== bt) return at > bt;
  if (a.sessionId !== b.sessionId) return a.sessionId > b.sessionId;
  return a.seq > b.seq;
}
