/** Sessions exported for a filter: every match, in the list's order, each read a window at a time. */
import type { Db } from "@/lib/db";
import { countSessions, listSessions as readSessions } from "@/lib/db/session-list";
import { agentTools, sessionEventRows, sessionHead, type SessionHead } from "@/lib/db/session-reads";
import type { SessionExportQuery } from "@/lib/session-list/query";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** Sessions per read of the list while exporting. */
const PAGE = 200;

export type ExportedSession = {
  head: SessionHead;
  tools: Awaited<ReturnType<typeof agentTools>>;
  rows: ReturnType<typeof sessionEventRows>;
};

/**
 * How many sessions an export of `input` holds (`count`, at most `max`) and how many match, and the sessions
 * themselves, read as they are consumed: a page of ids at a time, then one session's events a window at a time,
 * so memory holds one window whatever the export's size. A session deleted while the export runs is left out.
 */
export async function exportSessions(principal: Principal, input: SessionExportQuery, prisma: Db) {
  authorize(principal, "sessions.read");
  const { max, ...filters } = input;
  const matching = await countSessions(prisma, filters);
  return { count: Math.min(matching, max), matching, sessions: exported(prisma, filters, max) };
}

async function* exported(
  prisma: Db,
  filters: Omit<SessionExportQuery, "max">,
  max: number,
): AsyncGenerator<ExportedSession> {
  const toolsOf = new Map<string, ExportedSession["tools"]>();
  let left = max;
  let cursor: string | undefined;
  do {
    const page = await readSessions(prisma, { ...filters, limit: Math.min(PAGE, left), cursor });
    for (const item of page.sessions) {
      const head = await sessionHead(prisma, item.id);
      if (!head) continue;
      let tools = toolsOf.get(head.agentId);
      if (!tools) toolsOf.set(head.agentId, (tools = await agentTools(prisma, head.agentId)));
      yield { head, tools, rows: sessionEventRows(prisma, head.id) };
      left--;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor && left > 0);
}
