import { randomUUID } from "node:crypto";
import type { ReplayStep } from "@/lib/replay";
import type { SessionEvent } from "@/lib/replay";
import { pauser } from "@/lib/event-loop";
import type { DbClient } from "./client";
import { stepRows } from "./replay-steps";
import { sessionEventRows, toSessionEvent } from "./session-reads";

// ---------------------------------------------------------------------------
// A long run's reads and writes in short pieces. On the embedded database
// (one connection, in the web server's process) one query or transaction that
// runs for seconds makes every request wait for it, the health check too. So
// the base session is read a window at a time, and a run's steps are written
// ahead as drafts, a batch per statement with a pause between, then made
// visible by one short statement in the run's final transaction. Readers see
// the steps replaced at once, as before: drafts are in a table they never read.
// ---------------------------------------------------------------------------

/** How many draft steps one statement writes: about 0.1 s of the embedded database, which blocks the process meanwhile. */
export const DRAFT_BATCH = 100;

/** The base session's events as the engine reads them (model inputs in their stored, compact form), a window at a time. */
export async function sessionEventsForRun(client: DbClient, sessionId: string): Promise<SessionEvent[]> {
  const pause = pauser();
  const events: SessionEvent[] = [];
  for await (const r of sessionEventRows(client, sessionId)) {
    const event = toSessionEvent(r);
    if (r.inputPrefixSeq !== null) event.inputPrefix = { seq: r.inputPrefixSeq, count: r.inputPrefixCount ?? 0 };
    events.push(event);
    await pause();
  }
  return events;
}

/**
 * Writes a run's steps as drafts of `attempt`, outside any transaction: each
 * batch is one statement, with a pause between. First deletes the drafts an
 * earlier attempt left (a run killed before its result was stored). Call under
 * the replay's lease (one attempt at a time); `publishStepDrafts` makes them the steps.
 */
export async function writeStepDrafts(
  client: DbClient,
  replayId: string,
  attempt: string,
  steps: readonly ReplayStep[],
): Promise<void> {
  const pause = pauser();
  await client.replayStepDraft.deleteMany({ where: { replayId } });
  await pause();
  // Built before anything is written: the inputs' compaction is the run's own work, not the database's.
  const rows = stepRows(replayId, steps).map((r) => ({ ...r, id: randomUUID(), attempt }));
  await pause();
  for (let k = 0; k < rows.length; k += DRAFT_BATCH) {
    await client.replayStepDraft.createMany({ data: rows.slice(k, k + DRAFT_BATCH) });
    // Every batch: a batch is one statement that takes the connection for its whole length.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Inside the run's final transaction: `attempt`'s drafts become the replay's
 * steps (one INSERT … SELECT in the database, no rows through the client),
 * and every draft of the replay is deleted. Returns how many steps it stored.
 */
export async function publishStepDrafts(client: DbClient, replayId: string, attempt: string): Promise<number> {
  const stored = await client.$executeRaw`
    INSERT INTO "ReplayStep" (id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
      "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest")
    SELECT id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
      "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest"
    FROM "ReplayStepDraft" WHERE attempt = ${attempt} AND "replayId" = ${replayId}`;
  await client.replayStepDraft.deleteMany({ where: { replayId } });
  return stored;
}
