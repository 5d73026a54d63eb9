/**
 * Persistence of experiments: one policy version run over a cohort
 * of sessions of one agent version. The cohort is stored as the experiment's
 * replays, created together with it (status `running` until each has run), so
 * the total and the progress are counts of rows, never a second source of truth.
 * Every function takes a client so callers compose transactions.
 */
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";

export const EXPERIMENT_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/**
 * The cohort: the agent version's sessions that are not replays, oldest first,
 * optionally narrowed to `sessionIds` (ids of other agent versions are not in it).
 */
export async function cohortSessions(
  client: DbClient,
  agentVersionId: string,
  sessionIds?: readonly string[],
  filter: CohortFilter = {},
) {
  if (!agentVersionId) return [];
  return client.session.findMany({
    where: cohortWhere(agentVersionId, filter, sessionIds),
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, title: true, externalId: true },
  });
}

/**
 * A subset of a cohort, with the session browser's filters: the session's
 * status, a tool it called, text in it, and when it started (from ≤ startedAt < to).
 */
export interface CohortFilter {
  status?: string;
  tool?: string;
  q?: string;
  from?: Date;
  to?: Date;
}

function cohortWhere(
  agentVersionId: string,
  f: CohortFilter,
  sessionIds?: readonly string[],
): Prisma.SessionWhereInput {
  return {
    agentVersionId,
    isReplay: false,
    ...(sessionIds ? { id: { in: [...sessionIds] } } : {}),
    ...(f.status ? { status: f.status } : {}),
    ...(f.tool ? { toolNames: { has: f.tool } } : {}),
    ...(f.q ? { searchText: { contains: f.q.toLowerCase() } } : {}),
    ...(f.from || f.to ? { startedAt: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
  };
}

/** How many sessions of the cohort the filter keeps, of how many. */
export async function countCohort(client: DbClient, agentVersionId: string, filter: CohortFilter) {
  const [matching, total] = await Promise.all([
    client.session.count({ where: cohortWhere(agentVersionId, filter) }),
    client.session.count({ where: cohortWhere(agentVersionId, {}) }),
  ]);
  return { matching, total };
}

/** Agent versions with the size of their cohort, for the "new experiment" form. */
export async function agentVersionsWithCohorts(client: DbClient) {
  const versions = await client.agentVersion.findMany({
    orderBy: [{ agent: { name: "asc" } }, { version: "asc" }],
    select: {
      id: true,
      version: true,
      agentId: true,
      agent: { select: { name: true, adapter: true } },
      _count: { select: { sessions: { where: { isReplay: false } } } },
    },
  });
  return versions.map((v) => ({
    id: v.id,
    version: v.version,
    agentId: v.agentId,
    agentName: v.agent.name,
    adapter: v.agent.adapter,
    cohortSize: v._count.sessions,
  }));
}
export type AgentVersionCohort = Awaited<ReturnType<typeof agentVersionsWithCohorts>>[number];

/** Every saved policy version, newest policy first, for choosing one. */
export async function policyVersionChoices(client: DbClient) {
  const versions = await client.policyVersion.findMany({
    orderBy: [{ policy: { name: "asc" } }, { version: "desc" }],
    select: { id: true, version: true, hash: true, policy: { select: { id: true, name: true, agentId: true } } },
  });
  return versions.map((v) => ({
    id: v.id,
    version: v.version,
    hash: v.hash,
    policyId: v.policy.id,
    policyName: v.policy.name,
    agentId: v.policy.agentId,
  }));
}
export type PolicyVersionChoice = Awaited<ReturnType<typeof policyVersionChoices>>[number];

export interface NewExperiment {
  name: string;
  policyVersionId: string;
  agentVersionId: string;
  /** agent_version (the default); sessions: an explicit list of the agent's sessions; dataset: a dataset's members. */
  cohortKind?: "agent_version" | "sessions" | "dataset";
  /** The dataset the cohort was taken from (kind `dataset`). */
  dataset?: { id: string; name: string };
  createdBy?: string | null;
  /** An edit across the cohort and the members it does not apply to. */
  cohortEdit?: { edit: unknown; notApplied: readonly { sessionId: string; reason: string }[] };
}

/** Stores the experiment row (status `pending`). Call inside the transaction that also creates its replays. */
export async function createExperimentRow(client: DbClient, e: NewExperiment): Promise<{ id: string }> {
  return client.experiment.create({
    data: {
      name: e.name,
      policyVersionId: e.policyVersionId,
      agentVersionId: e.agentVersionId,
      cohortKind: e.cohortKind ?? "agent_version",
      status: "pending",
      createdBy: e.createdBy ?? null,
      ...(e.dataset ? { datasetId: e.dataset.id, datasetName: e.dataset.name } : {}),
      ...(e.cohortEdit !== undefined
        ? { cohortEdit: JSON.parse(JSON.stringify(e.cohortEdit)) as Prisma.InputJsonValue }
        : {}),
    },
    select: { id: true },
  });
}

/**
 * Moves an experiment from `pending` to `running`; false when it was not
 * pending (another runner has it, or it already ran), so it runs once.
 */
export async function claimExperiment(client: DbClient, id: string): Promise<boolean> {
  if (!id) return false;
  const { count } = await client.experiment.updateMany({
    where: { id, status: "pending" },
    data: { status: "running" },
  });
  return count === 1;
}

export async function finishExperiment(client: DbClient, id: string, status: "completed" | "failed"): Promise<void> {
  await client.experiment.update({ where: { id }, data: { status, finishedAt: new Date() } });
}

/** The experiment's replays still to run, in cohort order. */
export async function queuedReplayIds(client: DbClient, experimentId: string): Promise<string[]> {
  if (!experimentId) return [];
  const rows = await client.replay.findMany({
    where: { experimentId, status: "queued" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

const experimentHead = {
  id: true,
  name: true,
  status: true,
  cohortKind: true,
  datasetId: true,
  datasetName: true,
  createdAt: true,
  finishedAt: true,
  policyVersion: { select: { id: true, version: true, hash: true, policy: { select: { id: true, name: true } } } },
  agentVersion: { select: { id: true, version: true, agent: { select: { id: true, name: true } } } },
} satisfies Prisma.ExperimentSelect;

/** Replay statuses that have not produced a result yet. */
const NOT_DONE = ["queued", "running"];

/** Experiments newest first, with their progress (replays done of the cohort) and how many members have each status. */
export async function listExperiments(client: DbClient, opts: { limit?: number } = {}) {
  const limit = Math.min(Math.max(opts.limit ?? 100, 1), 200);
  const rows = await client.experiment.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: experimentHead,
  });
  const ids = rows.map((r) => r.id);
  const counts = ids.length
    ? await client.replay.groupBy({
        by: ["experimentId", "status"],
        where: { experimentId: { in: ids } },
        _count: { _all: true },
      })
    : [];
  return rows.map((r) => {
    let total = 0;
    let done = 0;
    const byStatus: Record<string, number> = {};
    for (const c of counts) {
      if (c.experimentId !== r.id) continue;
      total += c._count._all;
      byStatus[c.status] = c._count._all;
      if (!NOT_DONE.includes(c.status)) done += c._count._all;
    }
    return { ...r, total, done, byStatus };
  });
}
export type ExperimentListItem = Awaited<ReturnType<typeof listExperiments>>[number];

/** One experiment with its replays (one per cohort session), in cohort order. */
export async function getExperiment(client: DbClient, id: string) {
  if (!id) return null;
  return client.experiment.findUnique({
    where: { id },
    select: {
      ...experimentHead,
      cohortEdit: true,
      replays: {
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: {
          id: true,
          status: true,
          comparability: true,
          evidence: true,
          error: true,
          stepCount: true,
          finishedAt: true,
          checks: true,
          verdicts: true,
          session: { select: { id: true, title: true, externalId: true } },
        },
      },
    },
  });
}
export type ExperimentRow = NonNullable<Awaited<ReturnType<typeof getExperiment>>>;

/** Status and progress only, for polling: replays done of the cohort. */
export async function experimentProgress(client: DbClient, id: string) {
  if (!id) return null;
  const row = await client.experiment.findUnique({ where: { id }, select: { status: true } });
  if (!row) return null;
  const [total, notDone] = await Promise.all([
    client.replay.count({ where: { experimentId: id } }),
    client.replay.count({ where: { experimentId: id, status: { in: NOT_DONE } } }),
  ]);
  return { status: row.status, total, done: total - notDone };
}

/** The calls of one tool in these sessions (seq, name and input), for fitting an edit across a cohort. */
export async function toolCallsOf(client: DbClient, sessionIds: readonly string[], tool: string) {
  const rows: { sessionId: string; seq: number; kind: string; name: string; input: Prisma.JsonValue }[] = [];
  for (let i = 0; i < sessionIds.length; i += 1000) {
    rows.push(
      ...(await client.event.findMany({
        where: { sessionId: { in: sessionIds.slice(i, i + 1000) }, kind: "tool_call", name: tool },
        orderBy: [{ sessionId: "asc" }, { seq: "asc" }],
        select: { sessionId: true, seq: true, kind: true, name: true, input: true },
      })),
    );
  }
  return rows;
}

export async function agentVersionById(client: DbClient, id: string) {
  return client.agentVersion.findUnique({
    where: { id },
    select: { id: true, agentId: true, version: true, capabilities: true },
  });
}

/**
 * Exact members' cost and latency against their base runs (branch minus base: the sum of the steps'
 * cost and of their durations, as the comparison's metrics count them when every base step was
 * reached; costs summed as decimals, so that equal runs differ by exactly 0), in one query for the whole cohort: the experiment page asks on every refresh, and a
 * comparison per member would read every member's base session and steps each time.
 */
export async function memberDeltas(
  client: DbClient,
  replayIds: readonly string[],
): Promise<Map<string, { costUsd: number; latencyMs: number }>> {
  if (replayIds.length === 0) return new Map();
  const rows = await client.$queryRaw<{ id: string; costUsd: number; latencyMs: number }[]>`
    SELECT r.id,
      (COALESCE(b."costUsd", 0) - COALESCE(base."costUsd", 0))::float8 AS "costUsd",
      COALESCE(b."latencyMs", 0) - COALESCE(base."latencyMs", 0) AS "latencyMs"
    FROM "Replay" r
    LEFT JOIN LATERAL (
      SELECT sum(CASE WHEN jsonb_typeof(s.detail->'usage'->'costUsd') = 'number' THEN (s.detail->'usage'->>'costUsd')::numeric END) AS "costUsd",
             sum(CASE WHEN jsonb_typeof(s.detail->'durationMs') = 'number' THEN (s.detail->>'durationMs')::float8 END) AS "latencyMs"
      FROM "ReplayStep" s WHERE s."replayId" = r.id
    ) b ON true
    LEFT JOIN LATERAL (
      SELECT sum(e."costUsd"::numeric) AS "costUsd", sum(e."durationMs")::float8 AS "latencyMs"
      FROM "Event" e WHERE e."sessionId" = r."sessionId"
    ) base ON true
    WHERE r.id = ANY(${[...replayIds]}::text[])`;
  return new Map(rows.map((r) => [r.id, { costUsd: Number(r.costUsd), latencyMs: Number(r.latencyMs) }]));
}
