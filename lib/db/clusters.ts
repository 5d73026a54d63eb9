// ---------------------------------------------------------------------------
// Failure clusters in the database: a failed session's membership written in
// the transaction that saves it (every save path: documents, trace rebuilds,
// trace increments), the once-only backfill of sessions stored before, the
// reads the pages and the API make, and the analyst's merge, split and rename.
// Sizes and first/last seen are kept by a trigger on "ClusterMember"
// (migration failure_clusters), never counted by a read.
// ---------------------------------------------------------------------------
import {
  failureSignature,
  signatureHash,
  storedSignature,
  type FailureSignature,
  type FailureStep,
} from "@/lib/clusters/signature";
import { randomBytes } from "node:crypto";
import type { Db, DbClient } from "./client";
import { prismaSql, type SqlTx } from "./sql";

/** A cluster id: 25 characters, as the other ids. */
const clusterId = () => `c${randomBytes(12).toString("hex")}`;

/** One saved session's failure (or null: it did not fail, or no longer does). */
export type ClusterAssignment = {
  sessionId: string;
  agentId: string;
  agentVersionId: string;
  seenAt: Date;
  signature: FailureSignature | null;
};

/**
 * Writes sessions' cluster memberships (three statements, whatever their number): new signatures get a
 * cluster and a route; each failed session joins the cluster its signature routes to, unless it is already
 * a member with the same signature (where a merge or split put it stays); sessions that no longer fail
 * leave. `fresh`: the sessions were just created, so none has a membership to remove.
 */
export async function writeClusterAssignments(
  sql: SqlTx,
  items: readonly ClusterAssignment[],
  { fresh = false }: { fresh?: boolean } = {},
): Promise<void> {
  const failed = items.filter((i) => i.signature !== null);
  const passed = items.filter((i) => i.signature === null).map((i) => i.sessionId);
  if (!fresh && passed.length > 0)
    await sql.query`DELETE FROM "ClusterMember" WHERE "sessionId" = ANY(${passed}::text[])`;
  if (failed.length === 0) return;
  const members = failed.map((i) => ({ ...i, hash: signatureHash(i.signature!) }));
  const wanted = new Map<string, Record<string, string>>();
  for (const m of members) {
    const key = `${m.agentId} ${m.hash}`;
    if (wanted.has(key)) continue;
    const shown = storedSignature(m.signature!);
    wanted.set(key, { id: clusterId(), agentId: m.agentId, hash: m.hash, ...shown });
  }
  // A route made by this statement gets its cluster in the same statement; a route a concurrent import made
  // first wins (ON CONFLICT DO NOTHING returns nothing here, so no second cluster).
  await sql.query`
    WITH wanted AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify([...wanted.values()])}::jsonb)
        AS x(id text, "agentId" text, hash text, "check" text, step text, "errorType" text, message text)
      ORDER BY "agentId", hash
    ), routed AS (
      INSERT INTO "ClusterRoute" ("agentId", "signatureHash", "clusterId")
      SELECT "agentId", hash, id FROM wanted
      ON CONFLICT ("agentId", "signatureHash") DO NOTHING
      RETURNING "clusterId"
    )
    INSERT INTO "FailureCluster" (id, "agentId", "signatureHash", "check", step, "errorType", message)
    SELECT w.id, w."agentId", w.hash, w."check", w.step, w."errorType", w.message
    FROM wanted w JOIN routed r ON r."clusterId" = w.id`;
  const rows = members.map((m) => ({
    sessionId: m.sessionId,
    agentId: m.agentId,
    hash: m.hash,
    agentVersionId: m.agentVersionId,
    seenAt: m.seenAt.toISOString(),
  }));
  await sql.query`
    INSERT INTO "ClusterMember" ("sessionId", "clusterId", "signatureHash", "agentVersionId", "seenAt")
    SELECT x."sessionId", r."clusterId", x.hash, x."agentVersionId", x."seenAt"
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS x("sessionId" text, "agentId" text, hash text, "agentVersionId" text, "seenAt" timestamptz)
    JOIN "ClusterRoute" r ON r."agentId" = x."agentId" AND r."signatureHash" = x.hash
    ORDER BY x."sessionId"
    ON CONFLICT ("sessionId") DO UPDATE
      SET "clusterId" = EXCLUDED."clusterId", "signatureHash" = EXCLUDED."signatureHash",
          "agentVersionId" = EXCLUDED."agentVersionId", "seenAt" = EXCLUDED."seenAt"
      WHERE "ClusterMember"."signatureHash" <> EXCLUDED."signatureHash"`;
}

type SessionFacts = {
  id: string;
  agentId: string;
  agentVersionId: string;
  status: string;
  seenAt: Date;
  skip: boolean;
  errorCount: number;
};

/**
 * Stored sessions' cluster memberships recomputed from their rows: each session's failed events, its
 * last completed call of each tool and its failed online checks (all `failureSignature` needs to decide, see
 * lib/clusters/signature.ts).
 * Replays and superseded sessions belong to no cluster.
 */
export async function reclusterSessions(sql: SqlTx, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  const ids = [...sessionIds];
  const sessions = await sql.query<SessionFacts[]>`
    SELECT id, "agentId", "agentVersionId", status, coalesce("startedAt", "createdAt") AS "seenAt",
      ("isReplay" OR metadata ? 'supersededBy') AS skip, "errorCount"
    FROM "Session" WHERE id = ANY(${ids}::text[])`;
  // Only sessions with a failed step have steps to read (a trace export into a session without one reads no
  // event); those read their events' index range (a partial index on failed events would bound
  // that by the failed steps).
  const withErrors = sessions.filter((s) => !s.skip && s.errorCount > 0).map((s) => s.id);
  const steps =
    withErrors.length === 0
      ? []
      : await sql.query<(FailureStep & { sessionId: string })[]>`
    SELECT "sessionId", seq, kind, name, status, error FROM "Event"
    WHERE "sessionId" = ANY(${withErrors}::text[]) AND status = 'failed'
    UNION ALL
    SELECT "sessionId", max(seq) AS seq, 'tool_call' AS kind, name, 'completed' AS status, NULL AS error FROM "Event"
    WHERE "sessionId" = ANY(${withErrors}::text[]) AND kind = 'tool_call' AND status = 'completed'
    GROUP BY "sessionId", name`;
  // A failed online check is a failure of its own (lib/db/online-checks.ts): the first failing check by name.
  const failedChecks = new Map(
    (
      await sql.query<{ sessionId: string; name: string }[]>`
    SELECT v."sessionId", min(c.name COLLATE "C") AS name
    FROM "SessionCheckVerdict" v JOIN "Check" c ON c.id = v."checkId"
    WHERE v."sessionId" = ANY(${ids}::text[]) AND v.outcome = 'fail'
    GROUP BY 1`
    ).map((r) => [r.sessionId, r.name]),
  );
  const bySession = new Map<string, FailureStep[]>();
  for (const s of steps) {
    const list = bySession.get(s.sessionId) ?? [];
    list.push({ seq: Number(s.seq), kind: s.kind, name: s.name, status: s.status, error: s.error });
    bySession.set(s.sessionId, list);
  }
  await writeClusterAssignments(
    sql,
    sessions.map((s) => ({
      sessionId: s.id,
      agentId: s.agentId,
      agentVersionId: s.agentVersionId,
      seenAt: new Date(s.seenAt),
      signature: s.skip ? null : failureSignature(s, bySession.get(s.id) ?? [], failedChecks.get(s.id) ?? null),
    })),
  );
}

const BACKFILLED = "failure_clusters_backfilled";

/**
 * Sessions stored before failure clusters existed, put in their clusters once (at start): 500 sessions per
 * transaction, in id order; a restart halfway redoes at most a batch (writing a membership is idempotent).
 * Sessions saved meanwhile are clustered by their own save. Returns how many sessions it read.
 */
export async function backfillClusters(prisma: Db, batch = 500): Promise<number> {
  const done = await prisma.appSetting.findUnique({ where: { key: BACKFILLED } });
  if (done) return 0;
  let after = "";
  let read = 0;
  for (;;) {
    const ids = (
      await prisma.session.findMany({
        where: { id: { gt: after } },
        orderBy: { id: "asc" },
        take: batch,
        select: { id: true },
      })
    ).map((s) => s.id);
    if (ids.length === 0) break;
    await prisma.$transaction((tx) => reclusterSessions(prismaSql(tx), ids), { timeout: 120_000, maxWait: 30_000 });
    read += ids.length;
    after = ids.at(-1)!;
  }
  await prisma.appSetting.upsert({
    where: { key: BACKFILLED },
    create: { key: BACKFILLED, value: new Date().toISOString() },
    update: {},
  });
  return read;
}

// ---- Reads -------------------------------------------------------------------

const clusterSelect = {
  id: true,
  agentId: true,
  signatureHash: true,
  check: true,
  step: true,
  errorType: true,
  message: true,
  label: true,
  size: true,
  firstSeen: true,
  lastSeen: true,
  createdAt: true,
} as const;

export type ClusterRow = {
  id: string;
  agentId: string;
  signatureHash: string;
  check: string;
  step: string;
  errorType: string;
  message: string;
  label: string | null;
  size: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
  createdAt: Date;
};

/** An agent by id or by name; null when there is none. */
export async function findAgent(client: DbClient, ref: { agentId?: string; agentName?: string }) {
  const select = { id: true, name: true } as const;
  if (ref.agentId !== undefined) return client.agent.findUnique({ where: { id: ref.agentId }, select });
  if (ref.agentName !== undefined) return client.agent.findUnique({ where: { name: ref.agentName }, select });
  return null;
}

/** The agents, by name: the pages' agent picker. */
export function listAgents(client: DbClient) {
  return client.agent.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true } });
}

/** An agent's clusters with members, largest first (then the most recently seen). */
export function listClusters(client: DbClient, agentId: string, limit = 500): Promise<ClusterRow[]> {
  return client.failureCluster.findMany({
    where: { agentId, size: { gt: 0 } },
    orderBy: [{ size: "desc" }, { lastSeen: "desc" }, { id: "asc" }],
    take: limit,
    select: clusterSelect,
  });
}

/** The agent's clusters with members among `ids` (what a regression watch names the clusters that grew by). */
export function clustersOfAgentByIds(client: DbClient, agentId: string, ids: readonly string[]): Promise<ClusterRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return client.failureCluster.findMany({
    where: { agentId, size: { gt: 0 }, id: { in: [...ids] } },
    select: clusterSelect,
  });
}

export function clusterById(client: DbClient, id: string): Promise<(ClusterRow & { agent: { name: string } }) | null> {
  return client.failureCluster.findUnique({
    where: { id },
    select: { ...clusterSelect, agent: { select: { name: true } } },
  });
}

/** A cluster's members per day (UTC), oldest first. */
export async function clusterDays(client: DbClient, id: string): Promise<{ day: string; sessions: number }[]> {
  const rows = await client.$queryRaw<{ day: string; sessions: bigint }[]>`
    SELECT to_char(("seenAt" AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*) AS sessions
    FROM "ClusterMember" WHERE "clusterId" = ${id} GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ day: r.day, sessions: Number(r.sessions) }));
}

/** The agent versions a cluster's members ran, with how many each. */
export async function clusterVersions(client: DbClient, id: string) {
  const rows = await client.$queryRaw<{ agentVersionId: string; version: string; sessions: bigint }[]>`
    SELECT m."agentVersionId", v.version, count(*) AS sessions
    FROM "ClusterMember" m JOIN "AgentVersion" v ON v.id = m."agentVersionId"
    WHERE m."clusterId" = ${id} GROUP BY 1, 2 ORDER BY 3 DESC, 2`;
  return rows.map((r) => ({ agentVersionId: r.agentVersionId, version: r.version, sessions: Number(r.sessions) }));
}

/** A page of a cluster's members, most recently seen first; the cursor is the last one's `seenAt|sessionId`. */
export async function clusterMembers(client: DbClient, id: string, opts: { cursor?: string; limit: number }) {
  let where = {};
  if (opts.cursor) {
    const bar = opts.cursor.indexOf("|");
    const seenAt = new Date(opts.cursor.slice(0, bar));
    const sessionId = opts.cursor.slice(bar + 1);
    where = { OR: [{ seenAt: { lt: seenAt } }, { seenAt, sessionId: { lt: sessionId } }] };
  }
  const rows = await client.clusterMember.findMany({
    where: { clusterId: id, ...where },
    orderBy: [{ seenAt: "desc" }, { sessionId: "desc" }],
    take: opts.limit + 1,
    select: {
      seenAt: true,
      session: {
        select: {
          id: true,
          externalId: true,
          title: true,
          status: true,
          outcome: true,
          outcomeReason: true,
          startedAt: true,
          createdAt: true,
          agentVersion: { select: { version: true } },
        },
      },
    },
  });
  const page = rows.slice(0, opts.limit);
  const last = page.at(-1);
  return {
    sessions: page.map((r) => ({
      id: r.session.id,
      externalId: r.session.externalId,
      title: r.session.title,
      status: r.session.status,
      outcome: r.session.outcome,
      outcomeReason: r.session.outcomeReason,
      version: r.session.agentVersion.version,
      seenAt: r.seenAt,
    })),
    nextCursor: rows.length > opts.limit && last ? `${last.seenAt.toISOString()}|${last.session.id}` : null,
  };
}

/** Which of `sessionIds` are members of the cluster. */
export async function membersAmong(client: DbClient, clusterId: string, sessionIds: readonly string[]) {
  const rows = await client.clusterMember.findMany({
    where: { clusterId, sessionId: { in: [...sessionIds] } },
    select: { sessionId: true },
  });
  return new Set(rows.map((r) => r.sessionId));
}

// ---- Curation ------------------------------------------------------------------

export function renameCluster(client: DbClient, id: string, label: string | null) {
  return client.failureCluster.update({ where: { id }, data: { label }, select: clusterSelect });
}

/**
 * Moves the members of `sourceIds` into `targetId`, points their signatures' routes at it (new sessions
 * of those signatures land there), keeps the fixes tried on them and their smallest-fix searches (now the target's), and deletes the emptied
 * clusters. Call inside a transaction.
 */
export async function mergeClusterRows(tx: DbClient, targetId: string, sourceIds: readonly string[]): Promise<void> {
  const sources = [...sourceIds];
  const moved = { where: { clusterId: { in: sources } }, data: { clusterId: targetId } };
  await tx.clusterMember.updateMany(moved);
  await tx.clusterRoute.updateMany(moved);
  await tx.clusterFix.updateMany(moved);
  await tx.clusterFixSearch.updateMany(moved);
  await tx.failureCluster.deleteMany({ where: { id: { in: sources } } });
}

/**
 * A new cluster holding `sessionIds` (members of `from`), with `from`'s signature and no route: the
 * members stay in it while their signature does, and new sessions of that signature keep landing in
 * `from`. Call inside a transaction. Returns the new cluster's id.
 */
export async function splitClusterRows(
  tx: DbClient,
  from: ClusterRow,
  sessionIds: readonly string[],
  label: string | null,
): Promise<string> {
  const created = await tx.failureCluster.create({
    data: {
      agentId: from.agentId,
      signatureHash: from.signatureHash,
      check: from.check,
      step: from.step,
      errorType: from.errorType,
      message: from.message,
      label,
    },
    select: { id: true },
  });
  await tx.clusterMember.updateMany({
    where: { clusterId: from.id, sessionId: { in: [...sessionIds] } },
    data: { clusterId: created.id },
  });
  return created.id;
}

// ---- Regressions -----------------------------------------------------------------

/**
 * An agent's sessions and failed sessions per version (oldest version first) and per version and day, and its
 * clusters' members per version: read from the counts the database keeps (AgentDayPassCount and
 * ClusterVersionCount, migration pass_count_aggregates), one row per version and day whatever the number of
 * sessions. A session is counted unless it is a replay or superseded, and failed while it is a cluster member.
 * `days: false` leaves out the per-day rows (a regression watch flags versions only).
 */
export async function passCounts(client: DbClient, agentId: string, { days = true } = {}) {
  const byVersion = await client.$queryRaw<
    { agentVersionId: string; version: string; firstSeen: Date; total: bigint; failed: bigint }[]
  >`
    SELECT c."agentVersionId", v.version, min(c."firstSeen") AS "firstSeen",
      sum(c.sessions) AS total, sum(c.failed) AS failed
    FROM "AgentDayPassCount" c JOIN "AgentVersion" v ON v.id = c."agentVersionId"
    WHERE c."agentId" = ${agentId} AND c.sessions > 0
    GROUP BY 1, 2 ORDER BY 3, 2`;
  const byDay = days
    ? await client.$queryRaw<{ agentVersionId: string; day: string; total: number; failed: number }[]>`
    SELECT "agentVersionId", to_char(day, 'YYYY-MM-DD') AS day, sessions AS total, failed
    FROM "AgentDayPassCount"
    WHERE "agentId" = ${agentId} AND sessions > 0
    ORDER BY 2, 1`
    : [];
  const byCluster = await client.$queryRaw<{ clusterId: string; agentVersionId: string; sessions: number }[]>`
    SELECT n."clusterId", n."agentVersionId", n.sessions
    FROM "ClusterVersionCount" n JOIN "FailureCluster" c ON c.id = n."clusterId"
    WHERE c."agentId" = ${agentId} AND n.sessions > 0`;
  return {
    byVersion: byVersion.map((r) => ({ ...r, total: Number(r.total), failed: Number(r.failed) })),
    byDay: byDay.map((r) => ({ ...r, total: Number(r.total), failed: Number(r.failed) })),
    byCluster: byCluster.map((r) => ({ ...r, sessions: Number(r.sessions) })),
  };
}

/**
 * The error messages of a cluster's most recently seen members, as recorded (unmasked): each member's first
 * failed step with a message, at most `limit` members, each message cut to `chars` characters.
 */
export async function clusterErrorExamples(client: DbClient, clusterId: string, limit: number, chars: number) {
  const rows = await client.$queryRaw<{ sessionId: string; message: string }[]>`
    SELECT m."sessionId", left(e.message, ${chars}::int) AS message
    FROM (
      SELECT "sessionId", "seenAt" FROM "ClusterMember" WHERE "clusterId" = ${clusterId}
      ORDER BY "seenAt" DESC, "sessionId" DESC LIMIT ${limit}
    ) m
    CROSS JOIN LATERAL (
      SELECT ev.error->>'message' AS message FROM "Event" ev
      WHERE ev."sessionId" = m."sessionId" AND ev.status = 'failed'
        AND jsonb_typeof(ev.error->'message') = 'string'
      ORDER BY ev.seq LIMIT 1
    ) e
    ORDER BY m."seenAt" DESC, m."sessionId" DESC`;
  return rows;
}
