/** Reading investigations, and asking one to stop. */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import {
  findInvestigation,
  latestStaleCheck,
  listInvestigationsOfSession,
  listRecentInvestigations,
  requestInvestigationCancel,
} from "@/lib/db/investigations";
import { recordedToolStepsFor, replayStamp } from "@/lib/db/replay-window";
import { notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { presentInvestigation, type InvestigationRef, type StaleRecord } from "./investigations";

export async function getInvestigation(principal: Principal, input: InvestigationRef, prisma: Db) {
  authorize(principal, "investigations.read");
  const row = await findInvestigation(prisma, input.investigationId);
  if (!row) throw notFound("investigation", input.investigationId);
  return presentInvestigation(row);
}

export async function cancelInvestigation(principal: Principal, input: InvestigationRef, prisma: Db) {
  authorize(principal, "investigations.run");
  const status = await requestInvestigationCancel(prisma, input.investigationId);
  if (status === null) throw notFound("investigation", input.investigationId);
  return { id: input.investigationId, status };
}

export const SessionInvestigationsInput = z.object({ sessionId: z.string().min(1) });

export async function listSessionInvestigations(
  principal: Principal,
  input: z.infer<typeof SessionInvestigationsInput>,
  prisma: Db,
) {
  authorize(principal, "investigations.read");
  return (await listInvestigationsOfSession(prisma, input.sessionId)).map((r) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
  }));
}

/** The newest investigations of every session, for the Investigations page. */
export async function listInvestigations(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "investigations.read");
  return (await listRecentInvestigations(prisma)).map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

/**
 * The recordings a branch used that its session's newest stale check found changed: the branch's evidence
 * rests on answers the tools no longer give.
 */
export async function staleRecordingsUsed(principal: Principal, input: { replayId: string }, prisma: Db) {
  authorize(principal, "replays.read");
  const replay = await replayStamp(prisma, input.replayId);
  if (!replay) throw notFound("replay", input.replayId);
  const check = await latestStaleCheck(prisma, replay.sessionId);
  if (!check) return null;
  const stale = new Map(
    ((check.probes ?? []) as unknown as StaleRecord[]).filter((r) => r.state === "stale").map((r) => [r.seq, r]),
  );
  // Only the branch's recorded tool steps that stand for a stale recording are read, not the branch.
  const steps = await recordedToolStepsFor(prisma, input.replayId, [...stale.keys()]);
  const used = steps.map((step) => {
    const record = stale.get(step.baseSeq)!;
    return { seq: step.seq, baseSeq: record.seq, tool: record.tool, paths: record.paths };
  });
  return { investigationId: check.id, checkedAt: check.finishedAt?.toISOString() ?? null, used };
}
