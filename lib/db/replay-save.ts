import type { SessionEvent } from "@/lib/replay";
import { pauser } from "@/lib/event-loop";
import type { DbClient } from "./client";
import { knownTool } from "./history";
import { sessionEventRows, toSessionEvent } from "./session-reads";
import type { Event } from "./generated/client";

// ---------------------------------------------------------------------------
// A long run's reads in short pieces. On the embedded database (one
// connection, in the web server's process) one query that runs for seconds
// makes every request wait for it, the health check too. So the base session
// is read a window at a time, with a pause between. (A run's steps are written
// in its final transaction, a window of rows per statement: replay-steps.ts.)
// ---------------------------------------------------------------------------

/**
 * The base session's events as the engine reads them (model inputs in their stored, compact form), a window at a
 * time by seq range (sessionEventRows: a range read stays on the index where ORDER BY seq LIMIT made PostgreSQL
 * sort a fresh session's rows for every window).
 */
export async function sessionEventsForRun(
  client: DbClient,
  sessionId: string,
  /** The session's first and last seq, when the caller read them (replayRunContext): no read of the bounds. */
  seqs?: { first: number; last: number } | null,
): Promise<SessionEvent[]> {
  const pause = pauser();
  const events: SessionEvent[] = [];
  for await (const r of sessionEventRows(client, sessionId, undefined, undefined, seqs)) {
    events.push(runEvent(r));
    await pause();
  }
  return events;
}

/** A stored event as a run reads it: as the engine reads it, its model input in the stored form. */
function runEvent(r: Event): SessionEvent {
  const event = toSessionEvent(r);
  if (r.inputPrefixSeq !== null) event.inputPrefix = { seq: r.inputPrefixSeq, count: r.inputPrefixCount ?? 0 };
  return event;
}

/**
 * The base session's events as sessionEventsForRun reads them, from the rows a worker's claim answered as JSON
 * (lib/db/jobs.ts claimReplayRun `events`): the same rows, their start time as text.
 */
export function runEventsOfClaim(rows: readonly unknown[]): SessionEvent[] {
  return rows.map((row) => {
    const r = row as Omit<Event, "startedAt"> & { startedAt: string | null };
    return runEvent({ ...r, startedAt: r.startedAt === null ? null : new Date(r.startedAt) });
  });
}

/** A run context's row as read (replayRunContext, or a worker's claim: lib/db/jobs.ts claimReplayRun). */
export type RunContextRow = {
  id: string;
  sessionId: string;
  policySnapshot: unknown;
  edits: unknown;
  createdBy: string | null;
  modelEndpointId: string | null;
  experimentId: string | null;
  experimentAgentVersionId: string | null;
  agentId: string;
  adapter: string;
  tools: [name: string, sideEffect: string, readOnlyEndpoint: boolean][];
  hasChecks: boolean;
  hasLog: boolean;
  firstSeq: number | null;
  lastSeq: number | null;
};

/**
 * What a run needs of its replay row, in one round trip (a worker reads it with its claim instead): the policy
 * snapshot, edits, author, the agent and cohort it runs for, the agent's tools as the engine classes them
 * (knownTools), whether it has checks to judge, whether its branch log holds anything (none: the log is not read),
 * and the base session's seq range (its events are then read with no read of where they start or end). The query is
 * the database function "replay_run_context" (PL/pgSQL since migration 20261210010000): planned once per connection.
 * Sent as text, or as a LANGUAGE sql function, it was planned for every run: 1.8 ms on PostgreSQL 15, the largest
 * part of a short run's database time.
 */
export async function replayRunContext(client: DbClient, replayId: string) {
  const [found] = await client.$queryRaw<{ row: RunContextRow | null }[]>`
    SELECT replay_run_context(${replayId}::text) AS row`;
  return found?.row ? toRunContext(found.row) : null;
}

export type RunContext = ReturnType<typeof toRunContext>;

/** The run context from its row. */
export function toRunContext(row: RunContextRow) {
  return {
    id: row.id,
    sessionId: row.sessionId,
    policySnapshot: row.policySnapshot,
    edits: row.edits,
    createdBy: row.createdBy,
    modelEndpointId: row.modelEndpointId,
    experiment: row.experimentId ? { id: row.experimentId, agentVersionId: row.experimentAgentVersionId! } : null,
    session: { agentId: row.agentId, agent: { adapter: row.adapter } },
    tools: row.tools.map(([name, sideEffect, readOnly]) => knownTool(name, sideEffect, readOnly)),
    hasChecks: row.hasChecks,
    hasLog: row.hasLog,
    /** The base session's first and last seq (null: it has no events), read with the rest (sessionEventsForRun). */
    seqs: row.firstSeq === null || row.lastSeq === null ? null : { first: row.firstSeq, last: row.lastSeq },
  };
}
