/** The sessions export's answer, for the API (keys) and the session list's link (the browser's session). */
import type { Db } from "@/lib/db";
import { exportSessions, type ExportedSession } from "@/lib/server/sessions/export";
import type { Principal } from "@/lib/server/principal";
import type { SessionExportQuery } from "@/lib/session-list/query";
import { presentNativeSessionLine } from "./present";
import { streamedJson } from "./stream";

/**
 * Every session the list's filters match (in the list's `sort`, at most `max`) as native documents in JSON Lines:
 * one session per line, its inputs whole, ready to import here or elsewhere. `X-Branchpoint-Sessions` says how many
 * lines follow and `X-Branchpoint-Matching` how many sessions matched. Streamed a window of a session's events at a
 * time; a failure after the first byte cuts the body.
 */
export async function sessionsExportAnswer({
  query,
  prisma,
  principal,
}: {
  query: SessionExportQuery;
  prisma: Db;
  principal: Principal;
}): Promise<Response> {
  const { count, matching, sessions } = await exportSessions(principal, query, prisma);
  const day = new Date().toISOString().slice(0, 10);
  return streamedJson(lines(sessions), {
    where: "the sessions export",
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="branchpoint-sessions-${day}.jsonl"`,
      "x-branchpoint-sessions": String(count),
      "x-branchpoint-matching": String(matching),
    },
  });
}

async function* lines(sessions: AsyncIterable<ExportedSession>): AsyncGenerator<string> {
  for await (const { head, tools, rows } of sessions) yield* presentNativeSessionLine(head, tools, rows);
}
