import { Prisma } from "./generated/client";
import type { DbClient } from "./client";
import type { StoredVerdicts } from "./checks";

/** Investigations (blame searches, edit minimisation): their rows, progress and outcome. */

const json = (value: unknown) => value as Prisma.InputJsonValue;

export interface InvestigationRow {
  id: string;
  kind: string;
  status: string;
  sessionId: string;
  replayId: string | null;
  params: unknown;
  estimate: unknown;
  probes: unknown;
  result: unknown;
  error: unknown;
  cancelRequested: boolean;
  createdBy: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export async function insertInvestigation(
  client: DbClient,
  row: {
    kind: string;
    sessionId: string;
    replayId: string | null;
    params: unknown;
    estimate: unknown;
    createdBy: string;
  },
): Promise<InvestigationRow> {
  return client.investigation.create({
    data: {
      kind: row.kind,
      sessionId: row.sessionId,
      replayId: row.replayId,
      params: json(row.params),
      estimate: json(row.estimate),
      createdBy: row.createdBy,
    },
  });
}

export async function findInvestigation(client: DbClient, id: string): Promise<InvestigationRow | null> {
  if (!id) return null;
  return client.investigation.findUnique({ where: { id } });
}

export async function listInvestigationsOfSession(client: DbClient, sessionId: string, limit = 50) {
  return client.investigation.findMany({
    where: { sessionId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: { id: true, kind: true, status: true, result: true, createdBy: true, createdAt: true },
  });
}

/** queued → running, once: false when another runner has it (or it was cancelled first). */
export async function claimInvestigation(client: DbClient, id: string): Promise<boolean> {
  const claimed = await client.investigation.updateMany({
    where: { id, status: "queued" },
    data: { status: "running" },
  });
  return claimed.count === 1;
}

/** Stores the probes so far; answers whether the analyst asked to stop. */
export async function saveInvestigationProgress(client: DbClient, id: string, probes: unknown): Promise<boolean> {
  const row = await client.investigation.update({
    where: { id },
    data: { probes: json(probes) },
    select: { cancelRequested: true },
  });
  return row.cancelRequested;
}

export async function isInvestigationCancelRequested(client: DbClient, id: string): Promise<boolean> {
  const row = await client.investigation.findUnique({ where: { id }, select: { cancelRequested: true } });
  return row?.cancelRequested ?? true;
}

export async function finishInvestigation(
  client: DbClient,
  id: string,
  end: { status: "completed" | "failed" | "cancelled"; probes: unknown; result: unknown; error?: unknown },
): Promise<void> {
  await client.investigation.update({
    where: { id },
    data: {
      status: end.status,
      probes: json(end.probes),
      result: end.result === null ? Prisma.DbNull : json(end.result),
      error: end.error === undefined || end.error === null ? Prisma.DbNull : json(end.error),
      finishedAt: new Date(),
    },
  });
}

/** Asks a running investigation to stop after its current probe; a queued one is cancelled at once. */
export async function requestInvestigationCancel(client: DbClient, id: string): Promise<string | null> {
  await client.investigation.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() },
  });
  await client.investigation.updateMany({ where: { id, status: "running" }, data: { cancelRequested: true } });
  const row = await client.investigation.findUnique({ where: { id }, select: { status: true } });
  return row?.status ?? null;
}

/** Status and verdicts of replays (a probe's trials). */
export async function replayOutcomes(client: DbClient, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const rows = await client.replay.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, status: true, verdicts: true },
  });
  return rows.map((r) => ({ id: r.id, status: r.status, verdicts: (r.verdicts ?? null) as StoredVerdicts | null }));
}

/** The newest finished stale check of a session, if any. */
export async function latestStaleCheck(client: DbClient, sessionId: string) {
  return client.investigation.findFirst({
    where: { sessionId, kind: "stale", status: "completed" },
    orderBy: [{ finishedAt: "desc" }, { id: "desc" }],
    select: { id: true, probes: true, finishedAt: true },
  });
}

/** Queued investigations (to put on the job queue at start). */
export async function queuedInvestigationIds(client: DbClient): Promise<string[]> {
  const rows = await client.investigation.findMany({ where: { status: "queued" }, select: { id: true }, take: 1000 });
  return rows.map((r) => r.id);
}

/**
 * Investigations left `running` by a stopped process go back to `queued` (on the embedded database the folder
 * lock proves no other process runs them). They start over: a probe is a set of ordinary replays, so the probes
 * already run stay as evidence and are run again.
 */
export async function requeueRunningInvestigations(client: DbClient): Promise<number> {
  const { count } = await client.investigation.updateMany({
    where: { status: "running" },
    data: { status: "queued", probes: [] },
  });
  return count;
}
