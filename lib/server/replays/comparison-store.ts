/**
 * The stored comparison of a replay with its base: built once per state of
 * the replay's steps (right after a run stores them: executeReplay; or by the
 * first read that finds none, or one of an earlier state) and kept in the
 * database (lib/db/stored-comparison.ts), so that pages and the API read it a
 * window at a time instead of aligning both runs again.
 *
 * The build is the comparison over both runs' step summaries (a model input as
 * its digest: lib/db/replay-comparison.ts loadReplayComparison), aligned in
 * linear work (lib/replay/align.ts), and written as one row per pair.
 */
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import type { RawSql } from "@/lib/db/sql";
import { withSavepointWhenNeeded, withTransaction } from "@/lib/db/transactions";
import {
  compareDigestedRows,
  compareStoredRuns,
  comparisonInputsOf,
  replayComparisonInputs,
  type ComparisonInputsRow,
  type StoredRunsComparison,
} from "@/lib/db/replay-comparison";
import { replayStamp } from "@/lib/db/replay-window";
import {
  guardedWrites,
  storedComparisonHeader,
  writeStoredComparison,
  type StoredComparisonHeader,
} from "@/lib/db/stored-comparison";
import { notFound } from "@/lib/errors";
import { isBaseOnly } from "@/lib/replay";
import { toStoredPairs, type StoredPair } from "@/lib/session-view/compare-pairs";
import { COMPARE_FILTERS, shownBy, type CompareFilter } from "@/lib/session-view/compare-rows";

export type ComparisonCounts = Record<CompareFilter, number>;
export type ComparisonHeader = Omit<StoredComparisonHeader, "counts"> & { counts: ComparisonCounts };

/** How many comparisons were built (aligned over both runs) since the process started: what tests count. */
let builds = 0;
export const comparisonBuilds = () => builds;

/** Builds in progress, by replay and state: concurrent readers of a replay with no current comparison share one. */
const building = new Map<string, Promise<ComparisonHeader | null>>();

/** What a stored comparison was built from: the replay's steps and base (their stamp), and its status. */
const keyOf = (stamp: { stepsKey: string; status: string }) => `${stamp.stepsKey}:${stamp.status}`;

/** The comparison of the replay's steps and base as `stamp` says they are, as read now: a header and its pairs. */
async function buildComparison(
  client: DbClient,
  replayId: string,
  stamp: { stepsKey: string; status: string; sessionId: string },
): Promise<{ header: ComparisonHeader; pairs: StoredPair[] }> {
  return headerAndPairs(
    stamp,
    await compareStoredRuns(client, { id: replayId, sessionId: stamp.sessionId, status: stamp.status }),
  );
}

/** A comparison of both runs (`view`) as it is stored: a header and its pairs. */
function headerAndPairs(
  stamp: { stepsKey: string; status: string },
  view: StoredRunsComparison,
): { header: ComparisonHeader; pairs: StoredPair[] } {
  builds++;
  const { comparison } = view;
  const pairs = toStoredPairs(comparison.pairs);
  const counts = Object.fromEntries(COMPARE_FILTERS.map((f) => [f, 0])) as ComparisonCounts;
  for (const p of pairs) for (const f of COMPARE_FILTERS) if (shownBy(f, p)) counts[f]++;
  const fd = comparison.firstDivergence;
  let divergenceBranchIndex: number | null = null;
  if (fd)
    for (let k = fd.pairIndex + 1; k < comparison.pairs.length && divergenceBranchIndex === null; k++) {
      const p = comparison.pairs[k]!;
      if (!isBaseOnly(p)) divergenceBranchIndex = p.branchIndex;
    }
  const header: ComparisonHeader = {
    stepsKey: keyOf(stamp),
    pairCount: pairs.length,
    baseCount: view.baseCount,
    branchCount: view.branchCount,
    counts,
    firstDivergence: fd,
    divergenceBranchIndex,
    metrics: comparison.metrics,
    finalOutputDiff: comparison.finalOutputDiff,
    baseFinalOutput: view.baseFinalOutput,
    branchFinalOutput: view.branchFinalOutput,
  };
  return { header, pairs };
}

/**
 * Builds the replay's comparison as it is now and stores it (unless a run stored other steps meanwhile: the next
 * read builds that state's). Null when there is no such replay.
 */
export async function buildStoredComparison(prisma: Db, replayId: string): Promise<ComparisonHeader | null> {
  const stamp = await replayStamp(prisma, replayId);
  if (!stamp) return null;
  const { header, pairs } = await buildComparison(prisma, replayId, stamp);
  const now = await replayStamp(prisma, replayId);
  if (now && keyOf(now) === header.stepsKey)
    await withTransaction(prisma, (tx) => writeStoredComparison(tx, replayId, header, pairs), {
      timeout: 120_000,
      maxWait: 30_000,
    });
  return header;
}

/**
 * Builds and stores the comparison of the steps a run is storing, in the run's own transaction (`tx`, which
 * wrote them and holds the replay's row lock): the comparison is there as soon as the steps are, with no read of
 * the replay outside it. What it is built from is read in one statement, unless the statement that stored the
 * steps answered it (`given`). Under a savepoint, taken only before a statement that could fail and leave the
 * transaction unusable (a read, or a write of more than one call: writeStoredComparison): a failure is logged and
 * undone, not thrown (the run's result is stored all the same, and the first read builds the comparison instead).
 */
export async function storeComparisonInRun(
  tx: RawSql,
  replayId: string,
  given: ComparisonInputsRow | null = null,
): Promise<void> {
  await withSavepointWhenNeeded(
    tx,
    async (guarded) => {
      // The stamp, both runs' rows and whether one is stored: one statement.
      const inputs = given ? comparisonInputsOf(given) : await replayComparisonInputs(guarded, replayId);
      if (!inputs) return;
      const { stamp } = inputs;
      const replay = { id: replayId, sessionId: stamp.sessionId, status: stamp.status };
      // Reads the first divergence's two steps, when it has one that changed.
      const view = await compareDigestedRows(guarded, replay, inputs.baseRows, inputs.stepRows);
      // A base stored before digests existed (none since the start-up migration): the first read builds it.
      if (!view) return;
      const { header, pairs } = headerAndPairs(stamp, view);
      // One call undoes itself when it fails; more need the savepoint, taken before the first.
      const writer = guardedWrites(pairs) ? tx : guarded;
      await writeStoredComparison(writer, replayId, header, pairs, { locked: true, stored: inputs.stored });
    },
    (error) => console.error(`Replay ${replayId}: its comparison was not stored (the first read builds it):`, error),
  );
}

/** A replay's current comparison's header, and the replay's base session. */
export type CurrentComparison = ComparisonHeader & { replayId: string; sessionId: string };

/** The replay's current comparison: the stored one, else built and stored now. Not found: AppError not_found. */
export async function currentComparison(prisma: Db, replayId: string): Promise<CurrentComparison> {
  const [stamp, stored] = await Promise.all([replayStamp(prisma, replayId), storedComparisonHeader(prisma, replayId)]);
  if (!stamp) throw notFound("replay", replayId);
  const key = keyOf(stamp);
  const ids = { replayId, sessionId: stamp.sessionId };
  if (stored && stored.stepsKey === key) return { ...(stored as ComparisonHeader), ...ids };
  const id = `${replayId}\u0000${key}`;
  let build = building.get(id);
  if (!build) {
    build = buildStoredComparison(prisma, replayId).finally(() => building.delete(id));
    building.set(id, build);
  }
  const built = await build;
  if (!built) throw notFound("replay", replayId);
  return { ...built, ...ids };
}
