// ---------------------------------------------------------------------------
// What a failure cluster's members are: whether they are demo data (the built-in
// demo model answers only for those), and what was made on them (blame searches
// and reports), a page at a time with how many in all.
// ---------------------------------------------------------------------------
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";

/**
 * Whether a cluster is demo data: it has members and every one is a demo session (the only data the built-in demo
 * model answers for).
 */
export async function clusterIsDemo(client: DbClient, clusterId: string): Promise<boolean> {
  const [row] = await client.$queryRaw<{ members: bigint; others: bigint }[]>`
    SELECT count(*) AS members, count(*) FILTER (WHERE NOT s.demo) AS others
    FROM "ClusterMember" m JOIN "Session" s ON s.id = m."sessionId"
    WHERE m."clusterId" = ${clusterId}`;
  return Number(row?.members ?? 0) > 0 && Number(row?.others ?? 0) === 0;
}

/**
 * The blame searches (and minimizations) run on a cluster's members and the reports about them: a report is
 * about a member when it was made from a replay of one, or holds an investigation of one as evidence. Newest
 * first, at most `limit` of each after skipping `offset` of each, with how many there are of each in all.
 */
export async function clusterMemberWork(client: DbClient, clusterId: string, limit = 50, offset = 0) {
  const investigations = await client.$queryRaw<
    {
      id: string;
      kind: string;
      status: string;
      sessionId: string;
      sessionTitle: string | null;
      externalId: string | null;
      createdAt: Date;
    }[]
  >`
    SELECT i.id, i.kind, i.status, i."sessionId", s.title AS "sessionTitle", s."externalId", i."createdAt"
    FROM "ClusterMember" m
    JOIN "Investigation" i ON i."sessionId" = m."sessionId"
    JOIN "Session" s ON s.id = m."sessionId"
    WHERE m."clusterId" = ${clusterId}
    ORDER BY i."createdAt" DESC, i.id DESC
    LIMIT ${limit} OFFSET ${offset}`;
  const about = Prisma.sql`
    SELECT rp.id AS "reportId", m."sessionId"
    FROM "ClusterMember" m
    JOIN "Replay" p ON p."sessionId" = m."sessionId"
    JOIN "Report" rp ON rp."replayId" = p.id
    WHERE m."clusterId" = ${clusterId}
    UNION
    SELECT e."reportId", m."sessionId"
    FROM "ClusterMember" m
    JOIN "Investigation" i ON i."sessionId" = m."sessionId"
    JOIN "ReportEvidence" e ON e."sourceKey" = 'investigation:' || i.id
    WHERE m."clusterId" = ${clusterId}`;
  const reports = await client.$queryRaw<
    { id: string; title: string; status: string; createdAt: Date; sessions: bigint }[]
  >`
    SELECT r.id, r.title, r.status, r."createdAt", count(DISTINCT about."sessionId") AS sessions
    FROM (${about}) about
    JOIN "Report" r ON r.id = about."reportId"
    GROUP BY r.id, r.title, r.status, r."createdAt"
    ORDER BY r."createdAt" DESC, r.id DESC
    LIMIT ${limit} OFFSET ${offset}`;
  const [totals] = await client.$queryRaw<{ investigations: bigint; reports: bigint }[]>`
    SELECT
      (SELECT count(*) FROM "ClusterMember" m JOIN "Investigation" i ON i."sessionId" = m."sessionId"
        WHERE m."clusterId" = ${clusterId}) AS investigations,
      (SELECT count(DISTINCT about."reportId") FROM (${about}) about) AS reports`;
  return {
    investigations,
    reports: reports.map((r) => ({ ...r, sessions: Number(r.sessions) })),
    totals: { investigations: Number(totals?.investigations ?? 0), reports: Number(totals?.reports ?? 0) },
  };
}
