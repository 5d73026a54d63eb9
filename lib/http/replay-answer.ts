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
import { openReplay, openReplayComparison, openReplayComparisonWindow } from "@/lib/server/replays/replay-documents";
import { replayCounterfactual } from "@/lib/server/checks/counterfactual";
import { presentComparisonJson, presentReplayJson, type InputsForm, type StepsForm } from "./replay-stream";
import { streamedJson } from "./stream";

/** How many times a replay is read again when a run wrote it before the answer's first byte. */
const READS = 3;

/**
 * A streamed document of a replay, made again (up to READS times) when a run
 * wrote the replay before the answer's first byte: the status is not sent
 * yet, so a fresh read answers instead of an error. The replay's stamp is
 * checked once the first chunk is made (a document longer than a chunk would
 * otherwise find the change only at its end), and again after its last step.
 * After the first byte a change cuts the body (lib/http/stream.ts).
 */
async function readAgain<O extends { unchanged: () => Promise<void> }>(
  replayId: string,
  open: () => Promise<O>,
  make: (opened: O) => AsyncIterable<string>,
  opts: { where: string; status?: number; whole?: boolean },
): Promise<Response> {
  for (let read = 1; ; read++) {
    try {
      const opened = await open();
      if (opts.whole) return await wholeJson(make(opened), opened.unchanged, opts.status);
      return await streamedJson(make(opened), { ...opts, beforeFirstByte: opened.unchanged });
    } catch (error) {
      if (!(error instanceof RunChanged)) throw error;
      if (read === READS)
        throw new AppError("wrong_state", `Replay "${replayId}" changed while it was read, ${READS} times: try again.`);
    }
  }
}

/** A document made whole before answering (its status as read then): nothing is read after the answer. */
async function wholeJson(pieces: AsyncIterable<string>, unchanged: () => Promise<void>, status = 200) {
  let text = "";
  for await (const piece of pieces) text += piece;
  await unchanged();
  return new Response(text, { status, headers: { "content-type": "application/json" } });
}

/** The streamed document of a replay (GET /api/v1/replays/:id and the answers below), read again as readAgain says. */
export async function streamedReplay(
  principal: Principal,
  prisma: Db,
  replayId: string,
  make: (opened: Awaited<ReturnType<typeof openReplay>>) => AsyncIterable<string>,
  opts: { where: string; status?: number; whole?: boolean },
): Promise<Response> {
  return readAgain(replayId, () => openReplay(principal, { replayId }, prisma), make, opts);
}

/**
 * A document's pieces made with the replay's counterfactual (fork, verdicts, trial set), read as its
 * first piece is asked for: after the replay's stamp, and again with each read again.
 */
async function* withCounterfactual(
  principal: Principal,
  prisma: Db,
  replayId: string,
  present: (counterfactual: Awaited<ReturnType<typeof replayCounterfactual>>) => AsyncIterable<string>,
): AsyncGenerator<string> {
  yield* present(await replayCounterfactual(principal, { replayId }, prisma));
}

type Counterfactual = Awaited<ReturnType<typeof replayCounterfactual>>;

/** A GET answer of a replay's document with its counterfactual, as the two below are. */
type CounterfactualAnswer = (
  principal: Principal,
  prisma: Db,
  replayId: string,
  opts: { where: string; inputs?: InputsForm; steps?: StepsForm },
) => Promise<Response>;

/**
 * Such an answer, from how its document is opened and written: read again as readAgain says, its
 * counterfactual read after the replay's stamp (withCounterfactual), model inputs whole unless asked.
 */
function counterfactualAnswer<O extends { unchanged: () => Promise<void> }>(
  open: (principal: Principal, prisma: Db, replayId: string) => Promise<O>,
  present: (
    opened: O,
    counterfactual: Counterfactual,
    form: { inputs: InputsForm; steps: StepsForm },
  ) => AsyncIterable<string>,
): CounterfactualAnswer {
  return (principal, prisma, replayId, opts) =>
    readAgain(
      replayId,
      () => open(principal, prisma, replayId),
      (opened) =>
        withCounterfactual(principal, prisma, replayId, (counterfactual) =>
          present(opened, counterfactual, { inputs: opts.inputs ?? "full", steps: opts.steps ?? "all" }),
        ),
      // The summary is small: made whole, it holds no read open while it is sent.
      { where: opts.where, whole: opts.steps === "none" },
    );
}

/**
 * GET /api/v1/replays/:id: the replay with its counterfactual (fork, verdicts,
 * trial set), read after the replay's stamp, as comparisonAnswer's.
 */
export const replayDocumentAnswer = counterfactualAnswer(
  (principal, prisma, replayId) => openReplay(principal, { replayId }, prisma),
  ({ meta, steps, unchanged }, counterfactual, form) =>
    presentReplayJson(meta, steps, counterfactual, { ...form, unchanged }),
);

/**
 * GET /api/v1/replays/:id/comparison: the comparison of a replay with its base and
 * its counterfactual (fork, verdicts, trial set), both read after the replay's
 * stamp, so that a read again never pairs one run's steps with another's verdicts.
 */
export const comparisonAnswer = counterfactualAnswer(
  (principal, prisma, replayId) => openReplayComparison(principal, { replayId }, prisma),
  ({ outline, baseRows, stepRows, unchanged }, counterfactual, { inputs }) =>
    presentComparisonJson(outline, baseRows, stepRows, counterfactual, { inputs, unchanged }),
);

/**
 * GET /api/v1/replays/:id/comparison?from=&limit=: the same document with the pairs at positions
 * [from, from + limit) only, and `window: { from, limit, total, nextFrom }`, read from the stored comparison.
 */
export function comparisonWindowAnswer(
  principal: Principal,
  prisma: Db,
  replayId: string,
  opts: { where: string; inputs?: InputsForm; from: number; limit: number },
): Promise<Response> {
  const inputs = opts.inputs ?? "full";
  return counterfactualAnswer(
    (p, db, id) => openReplayComparisonWindow(p, { replayId: id, from: opts.from, limit: opts.limit, inputs }, db),
    ({ outline, baseRows, stepRows, start, unchanged }, counterfactual) =>
      presentComparisonJson(outline, baseRows, stepRows, counterfactual, { inputs, unchanged, start }),
  )(principal, prisma, replayId, { where: opts.where, inputs });
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
    /** Made whole before answering, not streamed: nothing is read once the answer is returned. */
    whole?: boolean;
  },
): Promise<Response> {
  return streamedReplay(
    principal,
    prisma,
    replayId,
    ({ meta, steps, unchanged }) =>
      presentReplayJson(meta, steps, opts.extra, { warnings: opts.warnings, after: opts.after, unchanged }),
    { where: opts.where, status: opts.status, whole: opts.whole },
  );
}
