/**
 * Datasets: a named, frozen list of sessions (chosen in the session list, or the sessions a filter matched when it
 * was saved), each member signed by who added it and when; the cohort an experiment can run over. A request that
 * names a session that does not exist is refused whole (the unknown ids named, nothing written); naming one twice,
 * or one already a member, is not an error. A dataset holds at most MAX_DATASET_SESSIONS sessions.
 */
import type { Db, DbClient } from "@/lib/db/client";
import {
  countMembers,
  datasetExperiments,
  datasetRow,
  datasetRows,
  deleteDatasetRow,
  deleteMembers,
  existingSessionIds,
  insertDataset,
  insertMembers,
  lockDataset,
  memberIdsAmong,
  memberPage,
  sessionIdsMatching,
  updateDatasetRow,
  type MemberRow,
} from "@/lib/db/datasets";
import { countSessions } from "@/lib/db/session-list";
import { withTransaction } from "@/lib/db/transactions";
import { AppError, notFound } from "@/lib/errors";
import { sessionLabel } from "@/lib/session-list/labels";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import {
  MAX_DATASET_SESSIONS,
  type CreateDatasetInput,
  type DatasetMembersInput,
  type DatasetPageInput,
  type DatasetRef,
  type UpdateDatasetInput,
} from "./dataset-inputs";

/** How big a dataset may grow (tests make it small). */
export interface DatasetLimits {
  maxSessions?: number;
}

const signer = (principal: Principal) => ({ addedBy: principal.name, addedById: principal.userId ?? null });

/** The ids named once each, in the order first named. */
const unique = (ids: readonly string[]) => [...new Set(ids)];

/** Refuses the request when any id names no session: every unknown one is named (the first 20 as issues). */
async function refuseUnknown(prisma: DbClient, ids: readonly string[]): Promise<void> {
  const known = await existingSessionIds(prisma, ids);
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  throw new AppError(
    "invalid_input",
    `${unknown.length === 1 ? "1 id names" : `${unknown.length} ids name`} no session: ${unknown.slice(0, 5).join(", ")}${unknown.length > 5 ? ", …" : ""}. Nothing was changed.`,
    unknown.slice(0, 20).map((id) => ({ path: "sessionIds", message: `"${id}" is not a session` })),
  );
}

function refuseOverCap(size: number, adding: number, max: number): void {
  if (size + adding <= max) return;
  throw new AppError(
    "invalid_input",
    `A dataset holds at most ${max} sessions: this one has ${size}, and ${adding} more would make ${size + adding}. Nothing was changed.`,
    [{ path: "sessionIds", message: `at most ${max} sessions in a dataset` }],
  );
}

/** A member as the page and the API show it. */
function presentMember(m: MemberRow) {
  const s = m.session;
  return {
    sessionId: s.id,
    label: sessionLabel(s),
    agentName: s.agent.name,
    agentVersion: s.agentVersion.version,
    status: s.status,
    outcome: s.outcome,
    startedAt: s.startedAt,
    steps: s.eventCount,
    addedBy: m.addedBy,
    addedAt: m.addedAt,
  };
}
export type DatasetMemberView = ReturnType<typeof presentMember>;

/** Every dataset, newest first, with its size. */
export async function listDatasets(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "datasets.read");
  return datasetRows(prisma);
}

/** A dataset with one page of its members (in the order they were added) and the experiments run over it. */
export async function getDataset(principal: Principal, input: DatasetPageInput, prisma: Db) {
  authorize(principal, "datasets.read");
  const { datasetId, offset, limit } = input;
  const dataset = await datasetRow(prisma, datasetId);
  if (!dataset) throw notFound("dataset", datasetId);
  const [members, experiments] = await Promise.all([
    memberPage(prisma, datasetId, offset, limit),
    datasetExperiments(prisma, datasetId),
  ]);
  return {
    dataset,
    members: { items: members.map(presentMember), total: dataset.size, offset, limit },
    experiments,
  };
}
export type DatasetPage = Awaited<ReturnType<typeof getDataset>>;

/**
 * Makes a dataset from the sessions named, or from those the session list's filter matches now (newest imported
 * first, at most the cap: `capped` says how many matched), or empty. Refused whole when an id names no session.
 */
export async function createDataset(
  principal: Principal,
  input: CreateDatasetInput,
  prisma: Db,
  limits: DatasetLimits = {},
) {
  authorize(principal, "datasets.write");
  const v = input;
  const max = limits.maxSessions ?? MAX_DATASET_SESSIONS;
  let sessionIds: string[] = [];
  let matching: number | null = null;
  if (v.sessionIds) {
    sessionIds = unique(v.sessionIds);
    refuseOverCap(0, sessionIds.length, max);
    await refuseUnknown(prisma, sessionIds);
  } else if (v.filter) {
    matching = await countSessions(prisma, v.filter);
    if (matching === 0)
      throw new AppError("invalid_input", "No session matches this filter: a dataset from it would be empty.", [
        { path: "filter", message: "no session matches" },
      ]);
    sessionIds = await sessionIdsMatching(prisma, v.filter, max);
  }
  const id = await withTransaction(prisma, async (tx) => {
    const row = await insertDataset(tx, {
      name: v.name,
      description: v.description || null,
      createdBy: principal.name,
      createdById: principal.userId ?? null,
    });
    await insertMembers(tx, row.id, sessionIds, signer(principal));
    return row.id;
  });
  const dataset = await datasetRow(prisma, id);
  return {
    dataset: dataset!,
    added: sessionIds.length,
    ...(matching !== null
      ? {
          matching,
          capped: matching > sessionIds.length,
          ...(matching > sessionIds.length
            ? {
                message: `The filter matches ${matching} sessions; a dataset holds at most ${max}, so it holds the ${sessionIds.length} imported most recently.`,
              }
            : {}),
        }
      : {}),
  };
}
export type CreatedDataset = Awaited<ReturnType<typeof createDataset>>;

/** Renames a dataset or changes its description (an empty one clears it). */
export async function updateDataset(principal: Principal, input: UpdateDatasetInput, prisma: Db) {
  authorize(principal, "datasets.write");
  const v = input;
  const ok = await updateDatasetRow(prisma, v.datasetId, {
    ...(v.name !== undefined ? { name: v.name } : {}),
    ...(v.description !== undefined ? { description: v.description || null } : {}),
  });
  if (!ok) throw notFound("dataset", v.datasetId);
  return (await datasetRow(prisma, v.datasetId))!;
}

/** Deletes a dataset; the experiments run over it keep their members and say the dataset was deleted. */
export async function deleteDataset(principal: Principal, input: DatasetRef, prisma: Db) {
  authorize(principal, "datasets.write");
  const { datasetId } = input;
  if (!(await deleteDatasetRow(prisma, datasetId))) throw notFound("dataset", datasetId);
  return { deleted: { id: datasetId } };
}

/** Adds sessions, signed by the principal; those already in it keep who added them and when. */
export async function addDatasetMembers(
  principal: Principal,
  input: DatasetMembersInput,
  prisma: Db,
  limits: DatasetLimits = {},
) {
  authorize(principal, "datasets.write");
  const v = input;
  const max = limits.maxSessions ?? MAX_DATASET_SESSIONS;
  const ids = unique(v.sessionIds);
  return withTransaction(prisma, async (tx) => {
    // The dataset's row is locked for the change, so two additions at once cannot pass the cap together.
    if (!(await lockDataset(tx, v.datasetId))) throw notFound("dataset", v.datasetId);
    await refuseUnknown(tx, ids);
    const already = await memberIdsAmong(tx, v.datasetId, ids);
    const fresh = ids.filter((id) => !already.has(id));
    const size = await countMembers(tx, v.datasetId);
    refuseOverCap(size, fresh.length, max);
    const added = await insertMembers(tx, v.datasetId, fresh, signer(principal));
    return { added, alreadyIn: ids.length - fresh.length, size: size + added };
  });
}

/** Removes sessions from a dataset; one that is not a member counts as already removed. */
export async function removeDatasetMembers(principal: Principal, input: DatasetMembersInput, prisma: Db) {
  authorize(principal, "datasets.write");
  const v = input;
  const ids = unique(v.sessionIds);
  return withTransaction(prisma, async (tx) => {
    if (!(await datasetRow(tx, v.datasetId))) throw notFound("dataset", v.datasetId);
    await refuseUnknown(tx, ids);
    const removed = await deleteMembers(tx, v.datasetId, ids);
    return { removed, notMembers: ids.length - removed, size: await countMembers(tx, v.datasetId) };
  });
}
