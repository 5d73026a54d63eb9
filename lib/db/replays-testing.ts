/**
 * The whole replay view, both runs read whole with every model input expanded:
 * what the app's readers were before they read what they use, kept for tests
 * as the oracle they must agree with; and the set-up of replays the database
 * tests share (a long chat imported, a run's result stored). Never used by
 * the app.
 */
import { importDocument } from "@/lib/ingest";
import { longChatLog } from "@/lib/ingest/long-chat";
import { compareRuns, type Policy, type ReplayResult } from "@/lib/replay";
import type { Db, DbClient } from "./client";
import { toReplaySteps } from "./replay-steps";
import { saveRunResult } from "./replay-writes";
import { loadReplayMeta, type ReplayView } from "./replays";
import { toSessionEvent, withFullInputs } from "./session-reads";
import { saveImportedSessions } from "./session-save";

/** A `turns`-turn chat (lib/ingest/long-chat.ts) imported: its session's id, event count and first tool call's seq. */
export async function importLongChat(prisma: Db, turns: number) {
  const result = importDocument(JSON.stringify(longChatLog(turns)), { format: "openai-chat" });
  if (!result.ok) throw new Error(`the chat log did not import: ${JSON.stringify(result.issues.slice(0, 3))}`);
  const [saved] = await saveImportedSessions(prisma, result.sessions);
  const sessionId = saved!.id;
  const firstTool = await prisma.event.findFirstOrThrow({
    where: { sessionId, kind: "tool_call" },
    orderBy: { seq: "asc" },
    select: { seq: true },
  });
  return { sessionId, events: saved!.eventCount, firstTool: firstTool.seq };
}

/** A replay row for `run` (a result of lib/replay's replay) with its steps stored as a run stores them: its id. */
export async function storedRun(client: DbClient, sessionId: string, policy: Policy, run: ReplayResult) {
  const { id } = await client.replay.create({
    data: {
      sessionId,
      policySnapshot: JSON.parse(JSON.stringify(policy)) as object,
      policyHash: "t",
      status: "running",
    },
    select: { id: true },
  });
  await saveRunResult(client, id, run, new Date());
  return id;
}

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
