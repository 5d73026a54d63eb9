/**
 * The whole replay view, both runs read whole with every model input expanded:
 * what the app's readers were before they read what they use, kept for tests
 * as the oracle they must agree with. Never used by the app.
 */
import { compareRuns } from "@/lib/replay";
import type { DbClient } from "./client";
import { loadReplayMeta, toReplaySteps, type ReplayView } from "./replays";
import { toSessionEvent, withFullInputs } from "./sessions";

/** The replay's meta, both runs whole (full model inputs) and their comparison, or null when there is no such replay. */
export async function loadReplayView(client: DbClient, replayId: string): Promise<ReplayView | null> {
  const meta = await loadReplayMeta(client, replayId);
  if (!meta) return null;
  const [events, stepRowsFound] = await Promise.all([
    client.event.findMany({ where: { sessionId: meta.replay.sessionId }, orderBy: { seq: "asc" } }),
    client.replayStep.findMany({ where: { replayId }, orderBy: { idx: "asc" } }),
  ]);
  const base = withFullInputs(events).map(toSessionEvent);
  const steps = toReplaySteps(stepRowsFound);
  return {
    ...meta,
    base,
    steps,
    comparison: compareRuns(base, steps, { branchComplete: meta.replay.status === "completed" }),
  };
}
