// ---------------------------------------------------------------------------
// Fixes tried on failure clusters: the samples they run (members of the
// cluster, passing sessions of its agent as a control), the record tying a
// fix to its experiment, and the reads its figures come from.
// ---------------------------------------------------------------------------
import type { FailureStep } from "@/lib/clusters/signature";
import type { DbClient } from "./client";

/**
 * Up to `limit` of a cluster's members, drawn with `seed`: ordered by md5 of the seed and the session id, so one
 * seed draws the same sample from the same members on both engines, and a larger sample contains a smaller one.
 */
export async function sampleClusterMembers(client: DbClient, clusterId: string, limit: number, seed: number) {
  return client.$queryRaw<{ sessionId: string; agentVersionId: string }[]>`
    SELECT m."sessionId", s."agentVersionId" FROM "ClusterMember" m JOIN "Session" s ON s.id = m."sessionId"
    WHERE m."clusterId" = ${clusterId}
    ORDER BY md5(${String(seed)} || ':' || m."sessionId"), m."sessionId"
    LIMIT ${limit}`;
}

/**
 * Up to `limit` passing sessions of the agent, drawn with `seed` as above: recorded sessions (not replays, not
 * superseded) that are in no failure cluster (not failed, no failed check, no unrecovered tool failure).
 */
export async function samplePassingSessions(client: DbClient, agentId: string, limit: number, seed: number) {
  if (limit <= 0) return [];
  const rows = await client.$queryRaw<{ id: string }[]>`
    SELECT s.id FROM "Session" s
    WHERE s."agentId" = ${agentId} AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
      AND s.status <> 'failed'
      AND NOT EXISTS (SELECT 1 FROM "ClusterMember" m WHERE m."sessionId" = s.id)
    ORDER BY md5(${String(seed)} || ':' || s.id), s.id
    LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** The newest of these agent versions (the one a fix's policy is checked against). */
export async function newestAgentVersion(client: DbClient, ids: readonly string[]) {
  return client.agentVersion.findFirst({
    where: { id: { in: [...ids] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true },
  });
}

/** A saved policy's newest version, or null. */
export async function latestPolicyVersion(client: DbClient, policyId: string) {
  return client.policyVersion.findFirst({
    where: { policyId },
    orderBy: { version: "desc" },
    select: { id: true, document: true, policy: { select: { agentId: true, name: true } } },
  });
}

export interface NewClusterFix {
  clusterId: string;
  experimentId: string;
  judge: "check" | "run";
  checkName: string | null;
  memberIds: readonly string[];
  controlIds: readonly string[];
  sample: number | null;
  controlSample: number;
  seed: number;
  createdBy: string;
}

/** Stores a fix's record; call in the transaction that stores its experiment. */
export async function insertClusterFix(client: DbClient, f: NewClusterFix): Promise<{ id: string }> {
  return client.clusterFix.create({
    data: { ...f, memberIds: [...f.memberIds], controlIds: [...f.controlIds] },
    select: { id: true },
  });
}

const fixSelect = {
  id: true,
  clusterId: true,
  experimentId: true,
  judge: true,
  checkName: true,
  memberIds: true,
  controlIds: true,
  sample: true,
  controlSample: true,
  seed: true,
  createdBy: true,
  createdAt: true,
  experiment: {
    select: {
      name: true,
      status: true,
      cohortEdit: true,
      policyVersion: { select: { id: true, version: true, policy: { select: { id: true, name: true } } } },
    },
  },
} as const;

/** A cluster's fixes, newest first (at most 50). */
export async function listClusterFixRows(client: DbClient, clusterId: string) {
  return client.clusterFix.findMany({
    where: { clusterId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 50,
    select: fixSelect,
  });
}
export type ClusterFixRow = Awaited<ReturnType<typeof listClusterFixRows>>[number];

/** The fix an experiment was run for, or null. */
export async function clusterFixOfExperiment(client: DbClient, experimentId: string) {
  return client.clusterFix.findUnique({ where: { experimentId }, select: fixSelect });
}

/** What a fix ran, to search it for its smallest fixing part: its cluster, sample, policy document and edits. */
export async function clusterFixToSearch(client: DbClient, id: string) {
  return client.clusterFix.findUnique({
    where: { id },
    select: {
      clusterId: true,
      sample: true,
      seed: true,
      experiment: { select: { cohortEdit: true, policyVersion: { select: { document: true } } } },
    },
  });
}

/** The replays of these experiments: session, status, and the verdicts of their branches. */
export async function fixReplays(client: DbClient, experimentIds: readonly string[]) {
  if (experimentIds.length === 0) return [];
  return client.replay.findMany({
    where: { experimentId: { in: [...experimentIds] } },
    select: { id: true, experimentId: true, sessionId: true, status: true, verdicts: true },
  });
}

/** The branches' failed steps and their last completed call of each tool: what the failure rule reads. */
export async function branchFailureSteps(
  client: DbClient,
  replayIds: readonly string[],
): Promise<Map<string, FailureStep[]>> {
  const out = new Map<string, FailureStep[]>();
  if (replayIds.length === 0) return out;
  const rows = await client.replayStep.findMany({
    where: {
      replayId: { in: [...replayIds] },
      OR: [{ status: "failed" }, { kind: "tool_call", status: "completed" }],
    },
    select: { replayId: true, idx: true, kind: true, name: true, status: true, error: true },
  });
  for (const r of rows) {
    const list = out.get(r.replayId) ?? [];
    list.push({
      seq: r.idx,
      kind: r.kind,
      name: r.name,
      status: r.status,
      error: (r.error ?? null) as FailureStep["error"],
    });
    out.set(r.replayId, list);
  }
  return out;
}
