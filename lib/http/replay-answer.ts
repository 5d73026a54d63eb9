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
import type { PolicyIssue } from "@/lib/replay";
import type { Principal } from "@/lib/server/principal";
import { openReplay } from "@/lib/server/replay-documents";
import { presentReplayJson } from "./replay-stream";
import { streamedJson } from "./stream";

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
  const { meta, steps, unchanged } = await openReplay(principal, { replayId }, prisma);
  const pieces = presentReplayJson(meta, steps, opts.extra, { warnings: opts.warnings, after: opts.after, unchanged });
  return streamedJson(pieces, {
    where: opts.where,
    status: opts.status,
  });
}
