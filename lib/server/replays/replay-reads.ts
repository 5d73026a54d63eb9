/** Reading replays: state for the progress poll, the list, a comparison and one of its pairs. */
import { changedPaths } from "@/lib/replay";
import type { Db } from "@/lib/db";
import {
  comparisonPairRows,
  getReplayState as readReplayState,
  listReplays as readReplays,
  isTerminal,
} from "@/lib/db/replays";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import { abandonIdleAgentReplays } from "@/lib/db/agent-replays";
import { notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { type ComparisonPairInput, type ListReplaysInput, type ReplayRef } from "./replay-inputs";

export { isTerminal };

/** A replay with its comparison, for the comparison page. */
export async function getReplayComparison(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  const view = await loadReplayComparison(prisma, input.replayId);
  if (!view) throw notFound("replay", input.replayId);
  return view;
}

/** Status and step count, for the progress poll. */
export async function getReplayState(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  // An agent-driven replay whose agent went silent past its idle timeout is abandoned as it is read.
  await abandonIdleAgentReplays(prisma, new Date(), input.replayId);
  const state = await readReplayState(prisma, input.replayId);
  if (!state) throw notFound("replay", input.replayId);
  return {
    status: state.status,
    stepCount: state.stepCount,
    progress: state.progressTotal ? { done: state.progressDone ?? 0, total: state.progressTotal } : null,
    cancelRequested: state.cancelRequested,
  };
}

/** Replays, newest first (agent-driven ones silent past their idle timeout abandoned first). */
export async function listReplays(principal: Principal, input: ListReplaysInput, prisma: Db) {
  authorize(principal, "replays.read");
  await abandonIdleAgentReplays(prisma);
  return readReplays(prisma, input);
}

/** Both sides of one aligned pair, for the comparison's detail panel. */
export async function getComparisonPair(principal: Principal, input: ComparisonPairInput, prisma: Db) {
  authorize(principal, "replays.read");
  const { replayId, pairId } = input;
  const numbers = pairId.slice(1).split("-").map(Number);
  const baseSeq = pairId.startsWith("p") || pairId.startsWith("r") ? numbers[0]! : null;
  const branchSeq = pairId.startsWith("p") ? numbers[1]! : pairId.startsWith("i") ? numbers[0]! : null;
  const pair = await comparisonPairRows(prisma, replayId, baseSeq, branchSeq);
  if (!pair) throw notFound("replay", replayId);
  return { ...pair, changedPaths: changedPaths(pair.base, pair.branch) };
}
