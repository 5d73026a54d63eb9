/**
 * The members of an experiment that wait for a fixture, with the call each one
 * waits on (its `pending` record), for grouping members paused on the same call.
 */
import type { PendingCall } from "@/lib/replay";
import type { DbClient } from "./client";

export interface PausedMember {
  replayId: string;
  session: { id: string; label: string };
  pending: PendingCall;
}

/** Replays of the experiment that are paused for a fixture, in cohort order. */
export async function pausedExperimentMembers(client: DbClient, experimentId: string): Promise<PausedMember[]> {
  const rows = await client.replay.findMany({
    where: { experimentId, status: "paused" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      pending: true,
      session: { select: { id: true, title: true, externalId: true } },
    },
  });
  const out: PausedMember[] = [];
  for (const r of rows) {
    const pending = r.pending as PendingCall | null;
    if (!pending || pending.waitingFor !== "fixture") continue;
    out.push({
      replayId: r.id,
      session: { id: r.session.id, label: r.session.title ?? r.session.externalId ?? r.session.id },
      pending,
    });
  }
  return out;
}

/** Whether the experiment exists. */
export async function experimentExists(client: DbClient, experimentId: string): Promise<boolean> {
  if (!experimentId) return false;
  return (await client.experiment.count({ where: { id: experimentId } })) > 0;
}
