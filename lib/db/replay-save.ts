import type { SessionEvent } from "@/lib/replay";
import { pauser } from "@/lib/event-loop";
import type { DbClient } from "./client";
import { sessionEventRows, toSessionEvent } from "./session-reads";

// ---------------------------------------------------------------------------
// A long run's reads in short pieces. On the embedded database (one
// connection, in the web server's process) one query that runs for seconds
// makes every request wait for it, the health check too. So the base session
// is read a window at a time, with a pause between. (A run's steps are written
// in its final transaction, a window of rows per statement: replay-steps.ts.)
// ---------------------------------------------------------------------------

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
