/**
 * Policy coverage of a replay and of an experiment: per tool, which source
 * answered, the misses by reason and the recordings never played. Reads
 * through lib/db, computes with the engine's pure `replayCoverage`.
 */
import type { Db } from "@/lib/db/client";
import { experimentCoverageSources, replayCoverageSource } from "@/lib/db/coverage";
import { AppError, issuesFromZod, notFound } from "@/lib/errors";
import { mergeCoverage, replayCoverage, type Coverage } from "@/lib/replay";
import { authorize } from "../authz";
import { ExperimentRef } from "../experiments/experiments";
import type { Principal } from "../principal";
import { ReplayRef } from "./replay-inputs";

export interface ExperimentCoverage extends Coverage {
  /** How many replays of the experiment were summed. */
  replays: number;
}

export async function getReplayCoverage(principal: Principal, input: ReplayRef, prisma: Db): Promise<Coverage> {
  authorize(principal, "coverage.read");
  const parsed = ReplayRef.safeParse(input);
  if (!parsed.success) throw new AppError("invalid_input", "Name the replay.", issuesFromZod(parsed.error));
  const { replayId } = parsed.data;
  const source = await replayCoverageSource(prisma, replayId);
  if (!source) throw notFound("replay", replayId);
  return replayCoverage(source);
}

export async function getExperimentCoverage(
  principal: Principal,
  input: ExperimentRef,
  prisma: Db,
): Promise<ExperimentCoverage> {
  authorize(principal, "coverage.read");
  const parsed = ExperimentRef.safeParse(input);
  if (!parsed.success) throw new AppError("invalid_input", "Name the experiment.", issuesFromZod(parsed.error));
  const { experimentId } = parsed.data;
  const sources = await experimentCoverageSources(prisma, experimentId);
  if (!sources) throw notFound("experiment", experimentId);
  const merged = mergeCoverage(
    sources.map((s) => ({ sessionId: s.sessionId, replayId: s.replayId, coverage: replayCoverage(s) })),
  );
  return { ...merged, replays: sources.length };
}
