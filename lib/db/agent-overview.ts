/**
 * An agent's overview over time: per UTC day (of startedAt, else createdAt) and agent version, the runs, the
 * failed runs, cost, duration p50/p95 and tokens, all worked out in the database so the page reads one row per
 * day and version whatever the number of sessions. Replays and superseded re-imports are left out, as in the
 * pass rates (lib/db/clusters.ts passCounts).
 */
import { Prisma } from "./generated/client";
import type { DbClient } from "./client";

export type OverviewRow = {
  day: string;
  version: string;
  runs: number;
  failed: number;
  costUsd: number;
  p50Ms: number | null;
  p95Ms: number | null;
  inputTokens: number;
  outputTokens: number;
};

type RawRow = {
  day: string;
  version: string;
  runs: bigint;
  failed: bigint;
  costUsd: number | null;
  p50: number | null;
  p95: number | null;
  inputTokens: bigint | null;
  outputTokens: bigint | null;
};

/**
 * Rows for `from` (inclusive) to `to` (exclusive), both instants, ordered by day then version. A run failed when
 * its outcome or its status is failed. The range is read through the (agentId, startedAt) index, and the
 * (agentId, createdAt) one for runs without a start time.
 */
export async function agentOverviewRows(
  client: DbClient,
  input: { agentId: string; from: Date; to: Date; version?: string },
): Promise<OverviewRow[]> {
  const version = input.version === undefined ? Prisma.empty : Prisma.sql`AND v.version = ${input.version}`;
  const rows = await client.$queryRaw<RawRow[]>`
    SELECT to_char((coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
      v.version,
      count(*) AS runs,
      count(*) FILTER (WHERE s.outcome = 'failed' OR s.status = 'failed') AS failed,
      sum(s."costUsd") AS "costUsd",
      percentile_cont(0.5) WITHIN GROUP (ORDER BY s."durationMs") AS p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY s."durationMs") AS p95,
      sum(s."inputTokens") AS "inputTokens",
      sum(s."outputTokens") AS "outputTokens"
    FROM "Session" s JOIN "AgentVersion" v ON v.id = s."agentVersionId"
    WHERE s."agentId" = ${input.agentId} AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
      AND ((s."startedAt" >= ${input.from} AND s."startedAt" < ${input.to})
        OR (s."startedAt" IS NULL AND s."createdAt" >= ${input.from} AND s."createdAt" < ${input.to}))
      ${version}
    GROUP BY 1, 2 ORDER BY 1, 2`;
  return rows.map((r) => ({
    day: r.day,
    version: r.version,
    runs: Number(r.runs),
    failed: Number(r.failed),
    // Sums of floats: rounded to the micro-dollar the prices are kept in.
    costUsd: Math.round(Number(r.costUsd ?? 0) * 1e6) / 1e6,
    p50Ms: r.p50 === null ? null : Math.round(Number(r.p50) * 1000) / 1000,
    p95Ms: r.p95 === null ? null : Math.round(Number(r.p95) * 1000) / 1000,
    inputTokens: Number(r.inputTokens ?? 0),
    outputTokens: Number(r.outputTokens ?? 0),
  }));
}

/** The agent's versions, oldest first: the overview's version choices. */
export async function agentVersionNames(client: DbClient, agentId: string): Promise<string[]> {
  const rows = await client.agentVersion.findMany({
    where: { agentId },
    orderBy: [{ createdAt: "asc" }, { version: "asc" }],
    select: { version: true },
  });
  return rows.map((r) => r.version);
}
