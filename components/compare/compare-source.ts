import { comparisonFindAction, comparisonPairAction, comparisonRowsAction } from "@/lib/actions/replays";
import {
  sessionComparisonFindAction,
  sessionComparisonPairAction,
  sessionComparisonRowsAction,
} from "@/lib/actions/sessions";
import type { CompareFilter } from "@/lib/session-view/compare-rows";

/**
 * What a comparison view compares: a replay's branch with its base, or any two recorded sessions (the first on
 * the base side). The view reads both the same way, through these: a window of rows, a row found (j / k), a pair.
 */
export type CompareSource =
  { kind: "replay"; replayId: string } | { kind: "sessions"; sessionId: string; otherId: string };

/** What each side is called in the list's header, the pair's title and the diff (a replay's: base and branch). */
export type SideLabels = { base: string; branch: string };
export const REPLAY_SIDES: SideLabels = { base: "base", branch: "branch" };

/** A key that names the source in the views' caches. */
export const sourceKey = (s: CompareSource): string[] =>
  s.kind === "replay" ? ["replay", s.replayId] : ["sessions", s.sessionId, s.otherId];

export function readCompareRows(s: CompareSource, window: { filter: CompareFilter; cursor: number; limit: number }) {
  return s.kind === "replay"
    ? comparisonRowsAction({ replayId: s.replayId, ...window })
    : sessionComparisonRowsAction({ sessionId: s.sessionId, otherId: s.otherId, ...window });
}

export function findCompareRow(s: CompareSource, find: { filter: CompareFilter; pair?: string; direction?: 1 | -1 }) {
  return s.kind === "replay"
    ? comparisonFindAction({ replayId: s.replayId, ...find })
    : sessionComparisonFindAction({ sessionId: s.sessionId, otherId: s.otherId, ...find });
}

export function readComparePair(s: CompareSource, pairId: string) {
  return s.kind === "replay"
    ? comparisonPairAction({ replayId: s.replayId, pairId })
    : sessionComparisonPairAction({ sessionId: s.sessionId, otherId: s.otherId, pairId });
}
