/**
 * Failure clusters: an agent's failed sessions grouped by signature (computed at ingest, lib/clusters), with
 * the analyst's curation (rename, merge, split, kept as new sessions arrive) and the pages' reads.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  clusterById,
  clusterDays,
  clusterMembers,
  clusterVersions,
  listAgents,
  listClusters,
  membersAmong,
  mergeClusterRows,
  renameCluster,
  splitClusterRows,
} from "@/lib/db/clusters";
import { clusterMemberWork } from "@/lib/db/cluster-members";
import { withTransaction } from "@/lib/db/transactions";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import { presentCluster, resolveAgent, type AgentRef } from "./cluster-shared";
import type { Principal } from "../principal";

const Id = z.string().min(1).max(64);

/** An agent's clusters, largest first. */
export async function listFailureClusters(principal: Principal, input: AgentRef, prisma: Db) {
  authorize(principal, "clusters.read");
  const agent = await resolveAgent(prisma, input);
  return { agent, clusters: (await listClusters(prisma, agent.id)).map(presentCluster) };
}

/** The agents there are, for the pages' picker. */
export async function listClusterAgents(principal: Principal, _input: unknown, prisma: Db) {
  authorize(principal, "clusters.read");
  return listAgents(prisma);
}

export const ClusterRef = z.object({ clusterId: Id });
export type ClusterRef = z.infer<typeof ClusterRef>;

async function clusterOrThrow(prisma: Db, clusterId: string) {
  const row = await clusterById(prisma, clusterId);
  if (!row) throw notFound("cluster", clusterId);
  return row;
}

/** One cluster with its members per day and the agent versions they ran. */
export async function getFailureCluster(principal: Principal, input: ClusterRef, prisma: Db) {
  authorize(principal, "clusters.read");
  const row = await clusterOrThrow(prisma, input.clusterId);
  const [days, versions] = await Promise.all([clusterDays(prisma, row.id), clusterVersions(prisma, row.id)]);
  return { ...presentCluster(row), agentName: row.agent.name, days, versions };
}

/** Rows of each list (blame searches, reports) on one page of the cluster's member work. */
export const MEMBER_WORK_PAGE = 50;

export const ClusterMemberWorkInput = ClusterRef.extend({
  /** Which page of each list (1 = the newest MEMBER_WORK_PAGE). */
  page: z.number().int().min(1).max(100_000).optional(),
});
export type ClusterMemberWorkInput = z.infer<typeof ClusterMemberWorkInput>;

/**
 * The blame searches run on the cluster's members and the reports about them (made from a replay of a member, or
 * holding a member's investigation as evidence), newest first, a page of each, with how many there are in all.
 */
export async function listClusterMemberWork(principal: Principal, input: ClusterMemberWorkInput, prisma: Db) {
  authorize(principal, "clusters.read");
  await clusterOrThrow(prisma, input.clusterId);
  const page = input.page ?? 1;
  const { investigations, reports, totals } = await clusterMemberWork(
    prisma,
    input.clusterId,
    MEMBER_WORK_PAGE,
    (page - 1) * MEMBER_WORK_PAGE,
  );
  return {
    page,
    pageSize: MEMBER_WORK_PAGE,
    totals,
    investigations: investigations.map((i) => ({
      id: i.id,
      kind: i.kind,
      status: i.status,
      session: { id: i.sessionId, label: i.sessionTitle ?? i.externalId ?? i.sessionId },
      createdAt: i.createdAt.toISOString(),
    })),
    reports: reports.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
  };
}

export const ClusterSessionsInput = z.object({
  clusterId: Id,
  cursor: z.string().min(1).max(120).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ClusterSessionsInput = z.infer<typeof ClusterSessionsInput>;

/** A page of a cluster's sessions, most recently seen first. */
export async function listClusterSessions(principal: Principal, input: ClusterSessionsInput, prisma: Db) {
  authorize(principal, "clusters.read");
  await clusterOrThrow(prisma, input.clusterId);
  if (input.cursor !== undefined) {
    const bar = input.cursor.indexOf("|");
    if (bar < 1 || Number.isNaN(Date.parse(input.cursor.slice(0, bar))))
      throw new AppError("invalid_input", "The cursor is not one this list gave.", [
        { path: "cursor", message: "unknown cursor" },
      ]);
  }
  const page = await clusterMembers(prisma, input.clusterId, {
    limit: input.limit,
    ...(input.cursor ? { cursor: input.cursor } : {}),
  });
  return {
    sessions: page.sessions.map((s) => ({ ...s, seenAt: s.seenAt.toISOString() })),
    nextCursor: page.nextCursor,
  };
}

export const RenameClusterInput = z.object({
  clusterId: Id,
  /** null (or blank): named after its signature again. */
  label: z
    .string()
    .max(200)
    .nullable()
    .transform((v) => (v === null || v.trim() === "" ? null : v.trim())),
});
export type RenameClusterInput = z.infer<typeof RenameClusterInput>;

export async function renameFailureCluster(principal: Principal, input: RenameClusterInput, prisma: Db) {
  authorize(principal, "clusters.write");
  await clusterOrThrow(prisma, input.clusterId);
  return presentCluster(await renameCluster(prisma, input.clusterId, input.label));
}

export const MergeClustersInput = z.object({
  targetId: Id,
  sourceIds: z.array(Id).min(1).max(100),
});
export type MergeClustersInput = z.infer<typeof MergeClustersInput>;

/**
 * Merges clusters of one agent into `targetId`: their sessions move there, and new sessions with their
 * signatures land there too. The merged clusters are gone.
 */
export async function mergeFailureClusters(principal: Principal, input: MergeClustersInput, prisma: Db) {
  authorize(principal, "clusters.write");
  const sources = [...new Set(input.sourceIds)];
  if (sources.includes(input.targetId))
    throw new AppError("invalid_input", "A cluster cannot be merged into itself.", [
      { path: `sourceIds[${input.sourceIds.indexOf(input.targetId)}]`, message: "the target itself" },
    ]);
  return withTransaction(prisma, async (tx) => {
    const target = await clusterById(tx, input.targetId);
    if (!target) throw notFound("cluster", input.targetId, "targetId");
    for (const [i, id] of input.sourceIds.entries()) {
      const source = await clusterById(tx, id);
      if (!source) throw notFound("cluster", id, `sourceIds[${i}]`);
      if (source.agentId !== target.agentId)
        throw new AppError("invalid_input", "Only clusters of one agent can be merged.", [
          { path: `sourceIds[${i}]`, message: `a cluster of agent ${source.agent.name}, not ${target.agent.name}` },
        ]);
    }
    await mergeClusterRows(tx, target.id, sources);
    return presentCluster((await clusterById(tx, target.id))!);
  });
}

export const SplitClusterInput = z.object({
  clusterId: Id,
  sessionIds: z.array(Id).min(1).max(1000),
  label: z.string().trim().min(1).max(200).optional(),
});
export type SplitClusterInput = z.infer<typeof SplitClusterInput>;

/**
 * Splits the named members off into a new cluster that keeps them while their signature stays the same;
 * new sessions of that signature keep landing in the original. Returns both.
 */
export async function splitFailureCluster(principal: Principal, input: SplitClusterInput, prisma: Db) {
  authorize(principal, "clusters.write");
  const sessionIds = [...new Set(input.sessionIds)];
  return withTransaction(prisma, async (tx) => {
    const from = await clusterById(tx, input.clusterId);
    if (!from) throw notFound("cluster", input.clusterId);
    const members = await membersAmong(tx, from.id, sessionIds);
    const strangers = input.sessionIds.flatMap((id, i) =>
      members.has(id) ? [] : [{ path: `sessionIds[${i}]`, message: `session ${id} is not in this cluster` }],
    );
    if (strangers.length > 0)
      throw new AppError("invalid_input", "Only the cluster's own sessions can be split off.", strangers);
    if (sessionIds.length >= from.size)
      throw new AppError(
        "invalid_input",
        "Splitting off every session would leave the cluster empty: rename it instead.",
        [{ path: "sessionIds", message: "every session of the cluster" }],
      );
    const id = await splitClusterRows(tx, from, sessionIds, input.label ?? null);
    return {
      cluster: presentCluster((await clusterById(tx, id))!),
      from: presentCluster((await clusterById(tx, from.id))!),
    };
  });
}
