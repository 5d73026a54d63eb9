/**
 * A replay's comparison with its base as stored (ReplayComparison and its
 * ReplayComparisonPair rows): written once per state of the replay's steps,
 * read a window at a time. Every read here costs the rows it returns: a
 * window is a range of the pairs' position, of their rank among their type,
 * or of their rank among the changes.
 */
import type { ComparisonMetrics, FirstDivergence, TextDiffPart } from "@/lib/replay";
import type { StoredPair } from "@/lib/session-view/compare-pairs";
import type { DbClient } from "./client";
import type { RawSql } from "./sql";

/** What a stored comparison holds besides its pairs. */
export interface StoredComparisonHeader {
  /** The replay's steps, base and status it was built from (see lib/server/replays/comparison-store.ts). */
  stepsKey: string;
  pairCount: number;
  baseCount: number;
  branchCount: number;
  counts: Record<string, number>;
  firstDivergence: FirstDivergence | null;
  divergenceBranchIndex: number | null;
  metrics: ComparisonMetrics;
  finalOutputDiff: TextDiffPart[] | null;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
}

/** Pairs per INSERT (a pair's row is about 150 bytes of JSON). */
const PAIR_WINDOW = 5000;

/**
 * Replaces the replay's stored comparison with this one. Call inside a transaction: the replay's row is locked
 * first (`locked`: the transaction holds its lock already, as a run storing its result does), so two builders of
 * the same replay store one after the other, never a mix of both. `stored: false`: the caller read, under that
 * lock, that the replay has none (nothing to delete). The old one's deletion, the header and the first window of
 * pairs are one call (the database function replay_comparison_write): when it fails it has written nothing and
 * throws, with the transaction still usable, so a comparison of at most PAIR_WINDOW pairs needs no savepoint to
 * be given up without losing the transaction's other writes (`guardedWrites`).
 */
export async function writeStoredComparison(
  tx: RawSql,
  replayId: string,
  header: StoredComparisonHeader,
  pairs: readonly StoredPair[],
  opts: { locked?: boolean; stored?: boolean } = {},
): Promise<void> {
  if (!opts.locked) await tx.$queryRaw`SELECT id FROM "Replay" WHERE id = ${replayId} FOR UPDATE`;
  for (let from = 0; from === 0 || from < pairs.length; from += PAIR_WINDOW) {
    const [row] = await tx.$queryRaw<{ failed: string | null }[]>`
      SELECT replay_comparison_write(${replayId}::text, ${from === 0 && opts.stored !== false}::boolean,
        ${from === 0 ? JSON.stringify(header) : null}::text,
        ${JSON.stringify(pairs.slice(from, from + PAIR_WINDOW))}::text) AS failed`;
    if (row?.failed) throw new Error(`The comparison of replay ${replayId} was not stored: ${row.failed}`);
  }
}

/** Whether writeStoredComparison writes these pairs in one call, which undoes itself when it fails. */
export const guardedWrites = (pairs: readonly StoredPair[]) => pairs.length <= PAIR_WINDOW;

/** The stored comparison's header, or null when none is stored. */
export async function storedComparisonHeader(
  client: DbClient,
  replayId: string,
): Promise<StoredComparisonHeader | null> {
  const row = await client.replayComparison.findUnique({ where: { replayId } });
  if (!row) return null;
  return {
    stepsKey: row.stepsKey,
    pairCount: row.pairCount,
    baseCount: row.baseCount,
    branchCount: row.branchCount,
    counts: row.counts as Record<string, number>,
    firstDivergence: (row.firstDivergence as FirstDivergence | null) ?? null,
    divergenceBranchIndex: row.divergenceBranchIndex,
    metrics: row.metrics as unknown as ComparisonMetrics,
    finalOutputDiff: (row.finalOutputDiff as TextDiffPart[] | null) ?? null,
    baseFinalOutput: row.baseFinalOutput ?? undefined,
    branchFinalOutput: row.branchFinalOutput ?? undefined,
  };
}

const PAIR_SELECT = {
  position: true,
  pairId: true,
  type: true,
  kind: true,
  name: true,
  baseSeq: true,
  baseIndex: true,
  branchSeq: true,
  branchIndex: true,
  source: true,
  inputOnly: true,
  typeRank: true,
  changeRank: true,
  changesBefore: true,
} as const;

const asStored = (rows: readonly Omit<StoredPair, "type">[] & readonly { type: string }[]) => rows as StoredPair[];

/** The kinds of window a stored comparison is read by. */
export type PairRange =
  | { by: "position"; from: number; to: number }
  | { by: "type"; type: StoredPair["type"]; from: number; to: number }
  | { by: "change"; from: number; to: number };

/** The stored pairs in a range [from, to) of their position, their rank among a type's, or among the changes. */
export async function storedPairs(client: DbClient, replayId: string, range: PairRange): Promise<StoredPair[]> {
  if (range.to <= range.from) return [];
  const span = { gte: range.from, lt: range.to };
  const where =
    range.by === "position"
      ? { replayId, position: span }
      : range.by === "type"
        ? { replayId, type: range.type, typeRank: span }
        : { replayId, changeRank: span };
  const orderBy =
    range.by === "position"
      ? { position: "asc" as const }
      : range.by === "type"
        ? { typeRank: "asc" as const }
        : { changeRank: "asc" as const };
  return asStored(await client.replayComparisonPair.findMany({ where, orderBy, select: PAIR_SELECT }));
}

/** The stored pairs with these ids (those it has), in position order. */
export async function storedPairsById(
  client: DbClient,
  replayId: string,
  pairIds: readonly string[],
): Promise<StoredPair[]> {
  if (pairIds.length === 0) return [];
  return asStored(
    await client.replayComparisonPair.findMany({
      where: { replayId, pairId: { in: [...pairIds] } },
      orderBy: { position: "asc" },
      select: PAIR_SELECT,
    }),
  );
}
