/**
 * A replay read a window at a time, for the replay page of a 10,000-step
 * branch: the summary (the replay row, its evidence, fixtures, approvals and
 * pending call; counts from columns; the probed steps only), step summaries
 * for a window of idxs, and one step whole when it is opened. Each costs what
 * it returns, never the branch or its base.
 */
import { z } from "zod";
import { abandonIdleAgentReplays } from "@/lib/db/agent-replays";
import type { Db } from "@/lib/db";
import { baseStepNames, replayStamp, replayStepWindow, stepBaseSeqs } from "@/lib/db/replay-window";
import { toReplayStep } from "@/lib/db/replay-steps";
import { fullStep, loadReplayMeta, type ReplayPageMeta } from "@/lib/db/replays";
import { AppError, notFound, parseInput } from "@/lib/errors";
import type { ReplayStep } from "@/lib/replay";
import { summarizeReplayStep, type ReplayStepSummary } from "@/lib/session-view/replay-steps";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** Steps per window when none is asked for, and at most. */
export const STEP_WINDOW_DEFAULT = 50;
export const STEP_WINDOW_MAX = 500;

const ReplayId = z.string().min(1, "Name the replay.").max(200);
const Idx = z.coerce.number().int().min(0).max(2_147_483_647);

export const ReplayStepsInput = z.object({
  replayId: ReplayId,
  /** The first step (idx) of the window, default 0; the answer's nextCursor is the next window's. */
  cursor: Idx.optional(),
  limit: z.coerce.number().int().min(1).max(STEP_WINDOW_MAX).default(STEP_WINDOW_DEFAULT),
});
export type ReplayStepsInput = z.input<typeof ReplayStepsInput>;

export const ReplayStepInput = z.object({ replayId: ReplayId, seq: Idx });
export type ReplayStepInput = z.input<typeof ReplayStepInput>;

export interface ReplayPageView extends ReplayPageMeta {
  /** Steps of the base run and of the branch (columns of their rows, not counted rows). */
  baseCount: number;
  stepCount: number;
  /** Changes whenever the replay's row is written or its base re-imported: what the browser keys its windows by. */
  version: string;
  /** The branch steps the evidence's probes name, with their base steps' kind and name. */
  probeSteps: { seq: number; baseSeq: number | null }[];
  probeBaseSteps: { seq: number; kind: string; name: string }[];
}

/** The replay page's header and panels: everything but its steps. */
export async function getReplayPage(
  principal: Principal,
  input: { replayId: string },
  prisma: Db,
): Promise<ReplayPageView> {
  authorize(principal, "replays.read");
  const { replayId } = parseInput(z.object({ replayId: ReplayId }), input);
  // An agent-driven replay whose agent went silent past its idle timeout is abandoned as it is read.
  await abandonIdleAgentReplays(prisma, new Date(), replayId);
  const [meta, stamp] = await Promise.all([
    loadReplayMeta(prisma, replayId, { inputDrift: false }),
    replayStamp(prisma, replayId),
  ]);
  if (!meta || !stamp) throw notFound("replay", replayId);
  const probes = meta.evidence.probes ?? [];
  const probeSteps = await stepBaseSeqs(
    prisma,
    replayId,
    probes.map((p) => p.step),
  );
  const probeBaseSteps = await baseStepNames(
    prisma,
    stamp.sessionId,
    probeSteps.flatMap((s) => (s.baseSeq === null ? [] : [s.baseSeq])),
  );
  return {
    ...meta,
    baseCount: stamp.baseCount,
    stepCount: stamp.stepCount,
    version: stamp.key,
    probeSteps,
    probeBaseSteps,
  };
}

export type StepsWindow = { cursor: number; nextCursor: number | null; steps: ReplayStepSummary[] };

/** Step summaries of one window: the steps with idx in [cursor, cursor + limit). */
export async function listReplaySteps(principal: Principal, input: ReplayStepsInput, prisma: Db): Promise<StepsWindow> {
  authorize(principal, "replays.read");
  const { replayId, cursor = 0, limit } = parseInput(ReplayStepsInput, input);
  const stamp = await replayStamp(prisma, replayId);
  if (!stamp) throw notFound("replay", replayId);
  const to = cursor + limit;
  const rows = cursor >= stamp.stepCount ? [] : await replayStepWindow(prisma, replayId, cursor, to);
  return { cursor, nextCursor: to < stamp.stepCount ? to : null, steps: rows.map(summarizeReplayStep) };
}

/** One branch step whole: a model call's full input rebuilt from the stored prefixes. */
export async function getReplayStep(principal: Principal, input: ReplayStepInput, prisma: Db): Promise<ReplayStep> {
  authorize(principal, "replays.read");
  const { replayId, seq } = parseInput(ReplayStepInput, input);
  const row = await fullStep(prisma, replayId, seq);
  if (!row) {
    if (!(await replayStamp(prisma, replayId))) throw notFound("replay", replayId);
    throw new AppError("not_found", `Replay "${replayId}" has no step ${seq}.`, [
      { path: "seq", message: "no such step" },
    ]);
  }
  return toReplayStep(row);
}
