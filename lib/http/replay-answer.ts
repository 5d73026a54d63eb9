/**
 * The answer of a request that changed a replay (started it, supplied a
 * fixture, decided an approval, cancelled it): `{ replay, ...after }`, the
 * replay as `GET /api/v1/replays/:id` gives it (every step, model inputs
 * whole), byte for byte what `presentReplay` of the whole view gave, but
 * written from the step rows a window at a time (lib/http/replay-stream.ts)
 * instead of built in memory.
 *
 * One read of the replay: a run that stores its steps while they are written
 * (a worker queued by the request) cuts the body (see presentReplayJson and
 * lib/http/stream.ts), never a document mixing two runs.
 */
import type { Db } from "@/lib/db";
import { RunChanged } from "@/lib/db/replay-rows";
import { AppError } from "@/lib/errors";
import type { PolicyIssue } from "@/lib/replay";
import type { Principal } from "@/lib/server/principal";
import { openReplay, openReplayComparison } from "@/lib/server/replay-documents";
import { presentReplayJson } from "./replay-stream";
import { streamedJson } from "./stream";

/** How many times a replay is read again when a run wrote it before the answer's first byte. */
const READS = 3;

/**
 * A streamed document of a replay, made again (up to READS times) when a run
 * wrote the replay while its first chunk was made: the status is not sent
 * yet, so a fresh read answers instead of an error. After the first byte a
 * change cuts the body (lib/http/stream.ts).
 */
async function readAgain(
  replayId: string,
  make: () => Promise<AsyncIterable<string>>,
  opts: { where: string; status?: number },
): Promise<Response> {
  for (let read = 1; ; read++) {
    try {
      return await streamedJson(await make(), opts);
    } catch (error) {
      if (!(error instanceof RunChanged)) throw error;
      if (read === READS)
        throw new AppError("wrong_state", `Replay "${replayId}" changed while it was read, ${READS} times: try again.`);
    }
  }
}

/** The streamed document of a replay (GET /api/v1/replays/:id and the answers below), read again as readAgain says. */
export async function streamedReplay(
  principal: Principal,
  prisma: Db,
  replayId: string,
  make: (opened: Awaited<ReturnType<typeof openReplay>>) => AsyncIterable<string>,
  opts: { where: string; status?: number },
): Promise<Response> {
  return readAgain(replayId, async () => make(await openReplay(principal, { replayId }, prisma)), opts);
}

/** The streamed comparison of a replay with its base (GET /api/v1/replays/:id/comparison), read again as readAgain says. */
export async function streamedComparison(
  principal: Principal,
  prisma: Db,
  replayId: string,
  make: (opened: Awaited<ReturnType<typeof openReplayComparison>>) => AsyncIterable<string>,
  opts: { where: string },
): Promise<Response> {
  return readAgain(replayId, async () => make(await openReplayComparison(principal, { replayId }, prisma)), opts);
}

export async function replayAnswer(
  principal: Principal,
  prisma: Db,
  replayId: string,
  opts: {
    /** The request, for the log of a body cut after its first byte. */
    where: string;
    /** Keys added to the replay, after its own. */
    extra?: Record<string, unknown>;
    warnings?: readonly PolicyIssue[];
    /** Keys after `replay` in the document. */
    after?: Record<string, unknown>;
    status?: number;
  },
): Promise<Response> {
  return streamedReplay(
    principal,
    prisma,
    replayId,
    ({ meta, steps, unchanged }) =>
      presentReplayJson(meta, steps, opts.extra, { warnings: opts.warnings, after: opts.after, unchanged }),
    { where: opts.where, status: opts.status },
  );
}
