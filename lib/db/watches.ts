// ---------------------------------------------------------------------------
// Watches in the database: the watch rows, the claim that keeps evaluation to
// once per window, triggers (unique per watch and key: a trigger never fires
// twice), each webhook attempt, and the reads the conditions are made of.
// ---------------------------------------------------------------------------
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";

const json = (value: unknown) => value as Prisma.InputJsonValue;

export type WatchRow = {
  id: string;
  agentId: string;
  name: string;
  kind: string;
  condition: unknown;
  actions: unknown;
  costBound: unknown;
  windowSeconds: number;
  lastEvaluatedAt: Date | null;
  state: unknown;
  createdBy: string | null;
  createdAt: Date;
  agent: { name: string };
};

const watchSelect = {
  id: true,
  agentId: true,
  name: true,
  kind: true,
  condition: true,
  actions: true,
  costBound: true,
  windowSeconds: true,
  lastEvaluatedAt: true,
  state: true,
  createdBy: true,
  createdAt: true,
  agent: { select: { name: true } },
} as const;

export function insertWatch(
  client: DbClient,
  row: Pick<WatchRow, "agentId" | "name" | "kind" | "condition" | "actions" | "costBound" | "windowSeconds"> & {
    createdBy: string;
  },
): Promise<WatchRow> {
  return client.watch.create({
    data: {
      ...row,
      condition: json(row.condition),
      actions: json(row.actions),
      costBound: row.costBound === null ? undefined : json(row.costBound),
    },
    select: watchSelect,
  });
}

/** Watches, newest first; one agent's when named. */
export function listWatchRows(client: DbClient, agentId?: string): Promise<WatchRow[]> {
  return client.watch.findMany({
    where: agentId === undefined ? {} : { agentId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
    select: watchSelect,
  });
}

export function findWatch(client: DbClient, id: string): Promise<WatchRow | null> {
  return client.watch.findUnique({ where: { id }, select: watchSelect });
}

export async function deleteWatchRow(client: DbClient, id: string): Promise<boolean> {
  return (await client.watch.deleteMany({ where: { id } })).count > 0;
}

/** Whether any watch exists: what keeps an import's cost at one small read when nobody watches. */
export async function anyWatch(client: DbClient): Promise<boolean> {
  return (await client.watch.findFirst({ select: { id: true } })) !== null;
}

/** The agents of these sessions that have a watch: two indexed reads (one when the sessions are none). */
export async function watchedAgentsOfSessions(client: DbClient, sessionIds: readonly string[]): Promise<string[]> {
  if (sessionIds.length === 0) return [];
  const agentsOf = { distinct: "agentId", select: { agentId: true } } as const;
  const agents = await client.session.findMany({ where: { id: { in: [...sessionIds] } }, ...agentsOf });
  if (agents.length === 0) return [];
  const watched = await client.watch.findMany({
    where: { agentId: { in: agents.map((a) => a.agentId) } },
    ...agentsOf,
  });
  return watched.map((w) => w.agentId);
}

export function watchesOfAgents(client: DbClient, agentIds: readonly string[]): Promise<WatchRow[]> {
  return client.watch.findMany({
    where: { agentId: { in: [...agentIds] } },
    orderBy: { createdAt: "asc" },
    select: watchSelect,
  });
}

/**
 * Takes this window's evaluation of a watch: true for the one caller that moved its last evaluation to `now`
 * (none was made, or the last is a window old); false when one was made inside the window. Taking it settles
 * an owed evaluation. With `owedSince`, only the owed evaluation marked then is taken (a delayed job's): one
 * made since, or owed again since, leaves it false.
 */
export async function claimEvaluation(
  client: DbClient,
  watchId: string,
  now: Date,
  owedSince?: Date,
): Promise<boolean> {
  const count =
    owedSince === undefined
      ? await client.$executeRaw`
    UPDATE "Watch" SET "lastEvaluatedAt" = ${now}, "owedSince" = NULL
    WHERE id = ${watchId}
      AND ("lastEvaluatedAt" IS NULL OR "lastEvaluatedAt" <= ${now}::timestamptz - make_interval(secs => "windowSeconds"))`
      : await client.$executeRaw`
    UPDATE "Watch" SET "lastEvaluatedAt" = ${now}, "owedSince" = NULL
    WHERE id = ${watchId} AND "owedSince" = ${owedSince}
      AND ("lastEvaluatedAt" IS NULL OR "lastEvaluatedAt" <= ${now}::timestamptz - make_interval(secs => "windowSeconds"))`;
  return count > 0;
}

/**
 * Marks an evaluation owed at the end of the watch's window (one asked for inside it): the window's end for the
 * one caller that marked it, null when one was owed already (its delayed evaluation is queued) or none is needed.
 */
export async function oweEvaluation(client: DbClient, watchId: string, now: Date): Promise<Date | null> {
  const rows = await client.$queryRaw<{ due: Date }[]>`
    UPDATE "Watch" SET "owedSince" = ${now}
    WHERE id = ${watchId} AND "owedSince" IS NULL AND "lastEvaluatedAt" IS NOT NULL
    RETURNING "lastEvaluatedAt" + make_interval(secs => "windowSeconds") AS due`;
  const due = rows[0]?.due;
  return due ? new Date(due) : null;
}

/** A watch's owed evaluation and the end of its window, or null when it owes none. */
export async function owedEvaluation(client: DbClient, watchId: string): Promise<{ since: Date; due: Date } | null> {
  const row = await client.watch.findUnique({
    where: { id: watchId },
    select: { owedSince: true, lastEvaluatedAt: true, windowSeconds: true },
  });
  if (!row?.owedSince || !row.lastEvaluatedAt) return null;
  return { since: row.owedSince, due: new Date(row.lastEvaluatedAt.getTime() + row.windowSeconds * 1000) };
}

/**
 * The watches a periodic sweep evaluates: those whose window has passed and that owe an evaluation (its delayed
 * job was lost) or whose condition moves with time alone (a cluster's growth over the last day). At most 100,
 * the longest unevaluated first.
 */
export async function watchesToSweep(client: DbClient, now: Date): Promise<{ id: string; agentId: string }[]> {
  return client.$queryRaw<{ id: string; agentId: string }[]>`
    SELECT id, "agentId" FROM "Watch"
    WHERE ("owedSince" IS NOT NULL OR kind = 'cluster_growth')
      AND ("lastEvaluatedAt" IS NULL OR "lastEvaluatedAt" <= ${now}::timestamptz - make_interval(secs => "windowSeconds"))
    ORDER BY "lastEvaluatedAt" ASC NULLS FIRST, id LIMIT 100`;
}

/** Watches by id, oldest first. */
export function watchesByIds(client: DbClient, ids: readonly string[]): Promise<WatchRow[]> {
  return client.watch.findMany({
    where: { id: { in: [...ids] } },
    orderBy: { createdAt: "asc" },
    select: watchSelect,
  });
}

/** The keys of the watch's triggers starting with `prefix` fired since `since`. */
export async function triggerKeysSince(client: DbClient, watchId: string, prefix: string, since: Date) {
  const rows = await client.watchTrigger.findMany({
    where: { watchId, key: { startsWith: prefix }, firedAt: { gte: since } },
    select: { key: true },
  });
  return rows.map((r) => r.key);
}

export async function saveWatchState(client: DbClient, watchId: string, state: unknown): Promise<void> {
  await client.watch.updateMany({ where: { id: watchId }, data: { state: json(state) } });
}

export type TriggerRow = {
  id: string;
  watchId: string;
  key: string;
  text: string;
  facts: unknown;
  investigation: unknown;
  firedAt: Date;
};

/** Stores a trigger unless the watch has one with this key: the new row, or null when it fired already. */
export async function insertTrigger(
  client: DbClient,
  row: { watchId: string; key: string; text: string; facts: unknown; investigation: unknown; firedAt: Date },
): Promise<TriggerRow | null> {
  const rows = await client.$queryRaw<TriggerRow[]>`
    INSERT INTO "WatchTrigger" (id, "watchId", key, text, facts, investigation, "firedAt")
    VALUES (${`wt_${crypto.randomUUID()}`}, ${row.watchId}, ${row.key}, ${row.text}, ${JSON.stringify(row.facts)}::jsonb,
      ${row.investigation === null ? null : JSON.stringify(row.investigation)}::jsonb, ${row.firedAt})
    ON CONFLICT ("watchId", key) DO NOTHING
    RETURNING id, "watchId", key, text, facts, investigation, "firedAt"`;
  return rows[0] ?? null;
}

export function findTrigger(client: DbClient, id: string) {
  return client.watchTrigger.findUnique({
    where: { id },
    include: { watch: { select: watchSelect } },
  });
}

export async function saveTriggerInvestigation(client: DbClient, id: string, investigation: unknown): Promise<void> {
  await client.watchTrigger.updateMany({ where: { id }, data: { investigation: json(investigation) } });
}

/**
 * Records an attempt as sending, before its POST: true for the one caller that recorded it (a job delivered twice
 * finds it recorded and does not send).
 */
export async function recordSending(
  client: DbClient,
  row: { watchId: string; triggerId: string; attempt: number; at: Date },
): Promise<boolean> {
  const { count } = await client.watchDelivery.createMany({
    data: [{ ...row, status: "sending" }],
    skipDuplicates: true,
  });
  return count > 0;
}

/**
 * Takes over an attempt left sending since `sendingSince` (its worker stopped between the POST and recording the
 * answer): true for the one caller that moved it to `now` with the note.
 */
export async function takeOverSending(
  client: DbClient,
  id: string,
  sendingSince: Date,
  now: Date,
  note: string,
): Promise<boolean> {
  const { count } = await client.watchDelivery.updateMany({
    where: { id, status: "sending", at: sendingSince },
    data: { at: now, note },
  });
  return count > 0;
}

/** Records a sending attempt's answer. */
export async function finishDelivery(
  client: DbClient,
  id: string,
  row: { status: "delivered" | "failed" | "refused"; httpStatus: number | null; error: string | null; at: Date },
): Promise<void> {
  await client.watchDelivery.updateMany({ where: { id, status: "sending" }, data: row });
}

/**
 * How long an attempt may stay sending before its worker is taken as stopped: three times the POST's own timeout
 * (10 s), so a send still in flight is never taken over.
 */
export const SENDING_STALE_MS = 30_000;

/** Attempts left sending for longer than SENDING_STALE_MS: their worker stopped, and a job sends them again. */
export function staleSendingAttempts(client: DbClient, now: Date) {
  return client.watchDelivery.findMany({
    where: { status: "sending", at: { lt: new Date(now.getTime() - SENDING_STALE_MS) } },
    orderBy: { at: "asc" },
    take: 100,
    select: { triggerId: true, attempt: true },
  });
}

export async function deliveryAttempts(client: DbClient, triggerId: string) {
  return client.watchDelivery.findMany({ where: { triggerId }, orderBy: { attempt: "asc" } });
}

/** A watch's webhook attempts, newest first, each with its trigger's key and time. */
export function deliveriesOf(client: DbClient, watchId: string, limit = 200) {
  return client.watchDelivery.findMany({
    where: { watchId },
    orderBy: [{ at: "desc" }, { attempt: "desc" }],
    take: limit,
    include: { trigger: { select: { key: true, text: true, firedAt: true } } },
  });
}

export function triggersOf(client: DbClient, watchId: string, limit = 50) {
  return client.watchTrigger.findMany({ where: { watchId }, orderBy: { firedAt: "desc" }, take: limit });
}

// ---- What the conditions read --------------------------------------------------------

/** The pass and fail verdicts of one check over the agent's last `n` judged sessions (by arrival). */
export async function lastVerdicts(client: DbClient, agentId: string, checkId: string, n: number) {
  const rows = await client.$queryRaw<{ passed: bigint; failed: bigint }[]>`
    WITH last AS (
      SELECT v.outcome, v."sessionId" FROM "SessionCheckVerdict" v JOIN "Session" s ON s.id = v."sessionId"
      WHERE v."agentId" = ${agentId} AND v."checkId" = ${checkId} AND v.outcome IN ('pass', 'fail')
      ORDER BY s."createdAt" DESC, s.id DESC LIMIT ${n})
    SELECT count(*) FILTER (WHERE outcome = 'pass') AS passed, count(*) FILTER (WHERE outcome = 'fail') AS failed FROM last`;
  const r = rows[0];
  return { passed: Number(r?.passed ?? 0), failed: Number(r?.failed ?? 0) };
}

/** The agent's clusters made since `since` that have members. */
export function clustersSince(client: DbClient, agentId: string, since: Date) {
  return client.failureCluster.findMany({
    where: { agentId, createdAt: { gte: since }, size: { gt: 0 } },
    orderBy: { createdAt: "asc" },
    take: 100,
    select: { id: true, label: true, step: true, errorType: true, message: true, check: true, size: true },
  });
}

/**
 * Per cluster of the agent, the members whose sessions arrived since `since` (only clusters with `atLeast`): read
 * from the agent's sessions since then (the (agentId, createdAt) index), not from all its clusters' members.
 */
export async function clusterArrivals(client: DbClient, agentId: string, since: Date, atLeast: number) {
  const rows = await client.$queryRaw<{ clusterId: string; added: bigint }[]>`
    SELECT m."clusterId", count(*) AS added
    FROM "Session" s JOIN "ClusterMember" m ON m."sessionId" = s.id JOIN "FailureCluster" c ON c.id = m."clusterId"
    WHERE s."agentId" = ${agentId} AND s."createdAt" >= ${since} AND c."agentId" = ${agentId}
    GROUP BY 1 HAVING count(*) >= ${atLeast} ORDER BY 2 DESC LIMIT 100`;
  return rows.map((r) => ({ clusterId: r.clusterId, added: Number(r.added) }));
}

/** A cluster's most recently seen members (at most `limit`). */
export async function recentMembers(client: DbClient, clusterId: string, limit: number): Promise<string[]> {
  const rows = await client.clusterMember.findMany({
    where: { clusterId },
    orderBy: [{ seenAt: "desc" }, { sessionId: "desc" }],
    take: limit,
    select: { sessionId: true },
  });
  return rows.map((r) => r.sessionId);
}

/** The agent's sessions most recently failed by a check (at most `limit`). */
export async function recentFailsOf(client: DbClient, agentId: string, checkId: string, limit: number) {
  const rows = await client.sessionCheckVerdict.findMany({
    where: { agentId, checkId, outcome: "fail" },
    orderBy: [{ judgedAt: "desc" }, { sessionId: "desc" }],
    take: limit,
    select: { sessionId: true },
  });
  return rows.map((r) => r.sessionId);
}

/** The most model steps a session of the agent has: what bounds one blame search's probes. */
export async function maxModelSteps(client: DbClient, agentId: string): Promise<number> {
  const row = await client.session.aggregate({
    where: { agentId, isReplay: false },
    _max: { modelCallCount: true },
  });
  return row._max.modelCallCount ?? 0;
}

export function checkName(client: DbClient, id: string) {
  return client.check.findUnique({ where: { id }, select: { id: true, name: true } });
}

export function checkByName(client: DbClient, name: string) {
  return client.check.findUnique({ where: { name }, select: { id: true, name: true } });
}
