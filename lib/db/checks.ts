import type { CheckVerdict, NamedCheck } from "@/lib/replay";
import { Prisma } from "./generated/client";
import type { DbClient } from "./client";
import type { RawSql } from "./sql";
import { notFound } from "@/lib/errors";

/** Saved outcome checks and the counterfactual columns of replays (checks, verdicts, trial sets). */

export interface CheckRow {
  id: string;
  name: string;
  definition: unknown;
  createdBy: string | null;
  createdAt: Date;
}

export interface StoredVerdicts {
  base: CheckVerdict[];
  branch: CheckVerdict[];
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

export async function insertCheck(
  client: DbClient,
  check: { name: string; definition: unknown; createdBy: string },
): Promise<CheckRow> {
  return client.check.create({
    data: { name: check.name, definition: json(check.definition), createdBy: check.createdBy },
  });
}

export async function findCheckByName(client: DbClient, name: string): Promise<CheckRow | null> {
  return client.check.findUnique({ where: { name } });
}

export async function listCheckRows(client: DbClient, limit = 500): Promise<CheckRow[]> {
  return client.check.findMany({ orderBy: [{ name: "asc" }], take: limit });
}

export async function checksByIds(client: DbClient, ids: readonly string[]): Promise<CheckRow[]> {
  if (ids.length === 0) return [];
  return client.check.findMany({ where: { id: { in: [...ids] } } });
}

/** The counterfactual settings stored with a replay at start. Call after `createReplayRow`, in the same transaction. */
export async function setReplayCounterfactual(
  client: DbClient,
  replayId: string,
  values: {
    modelEndpointId: string | null;
    checks: readonly NamedCheck[];
    trialSetId: string | null;
    trialIndex: number | null;
  },
): Promise<void> {
  await client.replay.update({
    where: { id: replayId },
    data: {
      modelEndpointId: values.modelEndpointId,
      checks: json(values.checks),
      trialSetId: values.trialSetId,
      trialIndex: values.trialIndex,
    },
  });
}

/**
 * The replay's counterfactual columns. Of its evidence only the fork is read: the rest (an input-drift entry per
 * model step, among others) grows with the branch, and every replay page load asks for this.
 */
export async function getReplayCounterfactual(client: DbClient, replayId: string) {
  const [row, fork] = await Promise.all([
    client.replay.findUnique({
      where: { id: replayId },
      select: {
        id: true,
        sessionId: true,
        status: true,
        modelEndpointId: true,
        checks: true,
        verdicts: true,
        trialSetId: true,
        trialIndex: true,
      },
    }),
    client.$queryRaw<
      { fork: string | null }[]
    >`SELECT (evidence->'fork')::text AS fork FROM "Replay" WHERE id = ${replayId}`,
  ]);
  if (!row) return null;
  const stored = fork[0]?.fork;
  return { ...row, evidence: { fork: stored ? (JSON.parse(stored) as unknown) : undefined } };
}

export async function saveVerdicts(client: RawSql, replayId: string, verdicts: StoredVerdicts | null): Promise<void> {
  const stored = await client.$executeRaw`
    UPDATE "Replay" SET verdicts = ${verdicts === null ? null : JSON.stringify(verdicts)}::jsonb WHERE id = ${replayId}::text`;
  if (stored !== 1) throw notFound("replay", replayId);
}

/** Base verdicts another replay of the same trial set already computed (the base is judged once per set). */
export async function siblingBaseVerdicts(
  client: DbClient,
  trialSetId: string,
  exceptReplayId: string,
): Promise<CheckVerdict[] | null> {
  const row = await client.replay.findFirst({
    where: { trialSetId, id: { not: exceptReplayId }, verdicts: { not: Prisma.AnyNull } },
    select: { verdicts: true },
    orderBy: { trialIndex: "asc" },
  });
  const v = row?.verdicts as StoredVerdicts | null | undefined;
  return v?.base ?? null;
}

/** The replays of a trial set with their steps (for the statistics), in trial order. */
export async function loadTrialSet(client: DbClient, trialSetId: string) {
  return client.replay.findMany({
    where: { trialSetId },
    orderBy: { trialIndex: "asc" },
    select: {
      id: true,
      sessionId: true,
      status: true,
      trialIndex: true,
      verdicts: true,
      evidence: true,
      policySnapshot: true,
      policyHash: true,
      policyVersion: { select: { version: true, policy: { select: { id: true, name: true } } } },
      session: { select: { title: true } },
      edits: true,
      createdAt: true,
      steps: { orderBy: { idx: "asc" } },
    },
  });
}

/** A model endpoint by id or name (a replay request names one either way). */
export async function findModelEndpointByIdOrName(client: DbClient, wanted: string) {
  return client.modelEndpoint.findFirst({
    where: { OR: [{ id: wanted }, { name: wanted }] },
    select: { id: true, name: true },
  });
}

/** Every model endpoint, oldest first (the list is small: an admin configures it). */
export async function listModelEndpoints(client: DbClient) {
  return client.modelEndpoint.findMany({
    select: { id: true, name: true, model: true },
    orderBy: { createdAt: "asc" },
    take: 100,
  });
}
