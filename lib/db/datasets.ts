/**
 * Datasets: a named, frozen list of sessions, each member signed by who added it and when. The members are rows
 * (dataset, session); adding a member again changes nothing. Every function takes a client so callers compose
 * transactions.
 */
import type { SessionFilters } from "@/lib/session-list/query";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { filterConditions } from "./session-list";
import { sessionNameSelect } from "./session-reads";

const head = {
  id: true,
  name: true,
  description: true,
  createdBy: true,
  createdAt: true,
  updatedAt: true,
  _count: { select: { members: true } },
} as const;

function present(row: {
  id: string;
  name: string;
  description: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  _count: { members: number };
}) {
  const { _count, ...rest } = row;
  return { ...rest, size: _count.members };
}
export type DatasetRow = ReturnType<typeof present>;

/** Datasets newest first, each with its size, at most `take`. */
export async function datasetRows(client: DbClient, take = 500): Promise<DatasetRow[]> {
  const rows = await client.dataset.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: head,
  });
  return rows.map(present);
}

export async function datasetRow(client: DbClient, id: string): Promise<DatasetRow | null> {
  if (!id) return null;
  const row = await client.dataset.findUnique({ where: { id }, select: head });
  return row ? present(row) : null;
}

export async function insertDataset(
  client: DbClient,
  data: { name: string; description: string | null; createdBy: string; createdById: string | null },
): Promise<{ id: string }> {
  return client.dataset.create({ data, select: { id: true } });
}

export async function updateDatasetRow(
  client: DbClient,
  id: string,
  data: { name?: string; description?: string | null },
): Promise<boolean> {
  const { count } = await client.dataset.updateMany({ where: { id }, data });
  return count === 1;
}

/** Deletes the dataset and its member rows; an experiment that ran over it keeps its replays and the name. */
export async function deleteDatasetRow(client: DbClient, id: string): Promise<boolean> {
  const { count } = await client.dataset.deleteMany({ where: { id } });
  return count === 1;
}

/** Locks the dataset's row for the transaction (changes to its members wait their turn); false when there is none. */
export async function lockDataset(tx: DbClient, id: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Dataset" WHERE "id" = ${id} FOR UPDATE`;
  return rows.length === 1;
}

/** Which of these ids name a session. */
export async function existingSessionIds(client: DbClient, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await client.session.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

/** Which of these sessions are already members. */
export async function memberIdsAmong(
  client: DbClient,
  datasetId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await client.datasetMember.findMany({
    where: { datasetId, sessionId: { in: [...ids] } },
    select: { sessionId: true },
  });
  return new Set(rows.map((r) => r.sessionId));
}

/** Adds the sessions that are not members yet, signed; returns how many were added. */
export async function insertMembers(
  client: DbClient,
  datasetId: string,
  sessionIds: readonly string[],
  by: { addedBy: string; addedById: string | null },
): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const { count } = await client.datasetMember.createMany({
    data: sessionIds.map((sessionId) => ({ datasetId, sessionId, ...by })),
    skipDuplicates: true,
  });
  return count;
}

export async function deleteMembers(client: DbClient, datasetId: string, sessionIds: readonly string[]) {
  if (sessionIds.length === 0) return 0;
  const { count } = await client.datasetMember.deleteMany({ where: { datasetId, sessionId: { in: [...sessionIds] } } });
  return count;
}

export async function countMembers(client: DbClient, datasetId: string): Promise<number> {
  return client.datasetMember.count({ where: { datasetId } });
}

/** One page of members, in the order they were added (then by session id), with what the table shows of each session. */
export async function memberPage(client: DbClient, datasetId: string, offset: number, limit: number) {
  return client.datasetMember.findMany({
    where: { datasetId },
    orderBy: [{ addedAt: "asc" }, { sessionId: "asc" }],
    skip: offset,
    take: limit,
    select: {
      addedBy: true,
      addedAt: true,
      session: {
        select: {
          ...sessionNameSelect,
          status: true,
          outcome: true,
          eventCount: true,
          agentVersion: { select: { version: true } },
        },
      },
    },
  });
}
export type MemberRow = Awaited<ReturnType<typeof memberPage>>[number];

/** Every member's session with its agent and agent version, in the order added: an experiment's cohort. */
export async function memberSessions(client: DbClient, datasetId: string) {
  const rows = await client.datasetMember.findMany({
    where: { datasetId },
    orderBy: [{ addedAt: "asc" }, { sessionId: "asc" }],
    select: {
      session: { select: { id: true, agentId: true, agentVersionId: true, agent: { select: { name: true } } } },
    },
  });
  return rows.map((r) => r.session);
}

/**
 * Ids of the sessions the list's filters match, newest imported first (the list's default order), at most
 * `limit`: what "save this filter as a dataset" freezes.
 */
export async function sessionIdsMatching(client: DbClient, filters: SessionFilters, limit: number): Promise<string[]> {
  const where = filterConditions(filters);
  const cond = where.length ? Prisma.join(where, " AND ") : Prisma.sql`TRUE`;
  const rows = await client.$queryRaw<{ id: string }[]>(
    Prisma.sql`SELECT s."id" FROM "Session" s WHERE ${cond} ORDER BY s."createdAt" DESC, s."id" DESC LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** Each dataset's agents and how many members each has: which agent an experiment over it runs. */
export async function datasetAgents(client: DbClient, datasetIds: readonly string[]) {
  if (datasetIds.length === 0) return [];
  const rows = await client.$queryRaw<{ datasetId: string; agentId: string; agentName: string; n: bigint }[]>(
    Prisma.sql`SELECT m."datasetId", s."agentId", a."name" AS "agentName", count(*) AS n
      FROM "DatasetMember" m JOIN "Session" s ON s."id" = m."sessionId" JOIN "Agent" a ON a."id" = s."agentId"
      WHERE m."datasetId" IN (${Prisma.join([...datasetIds])})
      GROUP BY m."datasetId", s."agentId", a."name" ORDER BY a."name"`,
  );
  return rows.map((r) => ({
    datasetId: r.datasetId,
    agentId: r.agentId,
    agentName: r.agentName,
    sessions: Number(r.n),
  }));
}

/** The experiments that took their cohort from the dataset, newest first. */
export async function datasetExperiments(client: DbClient, datasetId: string) {
  return client.experiment.findMany({
    where: { datasetId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 50,
    select: { id: true, name: true, status: true, createdAt: true },
  });
}
