/**
 * A replay's stored steps read a window at a time, in idx order and in their
 * stored form (a model call's input holds the messages it adds; its
 * `inputPrefixIdx`/`inputPrefixCount` name what comes before them): what a
 * streamed replay document is written from, so that neither the branch nor
 * its full inputs are ever held whole.
 */
import type { DbClient } from "./client";

/** Thrown when the rows read do not match what was read before them (a run written between the two reads). */
export class RunChanged extends Error {}

/** How many idxs one read of `replayStepRows` covers. */
export const STEP_WINDOW = 200;

/** The largest idx the column holds (int4). */
const MAX_IDX = 2 ** 31 - 1;

/**
 * The replay's step rows in idx order, read by idx range on the (replayId,
 * idx) index a window of `window` idxs at a time: each read costs its window,
 * not the branch; a gap in the idxs is jumped by one read of the index. Not
 * one snapshot: a run that stores new steps meanwhile may show in later
 * windows (a finished replay's steps do not change).
 */
/** `from`: the first idx read (default: the first step). */
export async function* replayStepRows(client: DbClient, replayId: string, window = STEP_WINDOW, from?: number) {
  const next = async (after: number | null) =>
    client.replayStep.findFirst({
      where: { replayId, ...(after === null ? {} : { idx: { gt: after } }) },
      orderBy: { idx: "asc" },
      select: { idx: true },
    });
  for (let start = (await next(from === undefined ? null : from - 1))?.idx; start !== undefined;) {
    const last = Math.min(start + window - 1, MAX_IDX);
    const rows = await client.replayStep.findMany({
      where: { replayId, idx: { gte: start, lte: last } },
      orderBy: { idx: "asc" },
    });
    yield* rows;
    if (last === MAX_IDX) return;
    start = rows.at(-1)?.idx === last ? last + 1 : (await next(last))?.idx;
  }
}

export type StoredReplayStepRow = Awaited<ReturnType<DbClient["replayStep"]["findFirstOrThrow"]>>;
