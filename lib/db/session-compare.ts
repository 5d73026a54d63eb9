/**
 * What a comparison of two recorded sessions reads of them: who they are (with a stamp that changes when either is
 * imported again or grows), and the content of the few steps a window of rows shows. The events themselves, as
 * digests, come from lib/db/replay-comparison.ts sessionCompareEvents.
 */
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import type { PlainContent } from "./replay-window";
import { sessionNameSelect } from "./session-reads";

/** A compared session as the page and the API name it. */
export interface ComparedSession {
  id: string;
  title: string | null;
  externalId: string | null;
  agentId: string;
  agentName: string;
  agentVersion: string;
  status: string;
  outcome: string | null;
  eventCount: number;
  startedAt: Date | null;
  createdAt: Date;
  /**
   * Changes when the session's events change: a trace export appends (count, end, errors) or the source is
   * imported again (a new row, so a new id, or the same row with other figures).
   */
  stamp: string;
}

/** The sessions with these ids that exist, by id. */
export async function comparedSessions(
  client: DbClient,
  ids: readonly string[],
): Promise<Map<string, ComparedSession>> {
  const rows = await client.session.findMany({
    where: { id: { in: [...ids] } },
    select: {
      id: true,
      title: true,
      externalId: true,
      agentId: true,
      status: true,
      outcome: true,
      eventCount: true,
      errorCount: true,
      startedAt: true,
      endedAt: true,
      createdAt: true,
      costUsd: true,
      agent: { select: { name: true } },
      agentVersion: { select: { version: true } },
    },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        title: r.title,
        externalId: r.externalId,
        agentId: r.agentId,
        agentName: r.agent.name,
        agentVersion: r.agentVersion.version,
        status: r.status,
        outcome: r.outcome,
        eventCount: r.eventCount,
        startedAt: r.startedAt,
        createdAt: r.createdAt,
        stamp: `${r.eventCount}:${r.errorCount}:${r.endedAt?.toISOString() ?? ""}:${r.costUsd}:${r.status}`,
      },
    ]),
  );
}

/** The content of a session's steps at these seqs (a model call's input left out: its prompt), by seq. */
export async function sessionPlainContents(
  client: DbClient,
  sessionId: string,
  seqs: readonly number[],
): Promise<Map<number, PlainContent>> {
  if (seqs.length === 0) return new Map();
  const [row] = await client.$queryRaw<{ rows: string | null }[]>(
    Prisma.sql`SELECT json_agg(json_build_object('seq', seq, 'kind', kind, 'input', CASE WHEN kind = 'model_call' THEN NULL ELSE input END, 'output', output, 'error', error))::text AS rows
      FROM "Event" WHERE "sessionId" = ${sessionId} AND seq IN (${Prisma.join([...new Set(seqs)])})`,
  );
  const rows = row?.rows ? (JSON.parse(row.rows) as PlainContent[]) : [];
  return new Map(rows.map((r) => [r.seq, r]));
}

/** A session's agent (id and name), or null when there is no such session. */
export async function sessionAgentOf(client: DbClient, sessionId: string) {
  const row = await client.session.findUnique({
    where: { id: sessionId },
    select: { agentId: true, agent: { select: { name: true } } },
  });
  return row ? { agentId: row.agentId, agentName: row.agent.name } : null;
}

/** The ids among these that name a session. */
export async function existingSessionIds(client: DbClient, ids: readonly string[]): Promise<string[]> {
  const rows = await client.session.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
  return rows.map((r) => r.id);
}

/** What the "Compare with…" picker shows of these sessions (in no particular order). */
export async function candidateRows(client: DbClient, ids: readonly string[]) {
  return client.session.findMany({
    where: { id: { in: [...ids] } },
    select: { ...sessionNameSelect, status: true, outcome: true, eventCount: true, agentId: true },
  });
}
