/**
 * What policy coverage reads: for each branch, its base session's events, its
 * tool-call steps in order, the policy it ran under and the call it waits on.
 */
import { Policy, type PendingCall, type ReplayStep, type SessionEvent } from "@/lib/replay";
import type { DbClient } from "./client";
import { toReplayStep } from "./replay-steps";
import { toSessionEvent } from "./session-reads";

export interface CoverageSource {
  replayId: string;
  sessionId: string;
  status: string;
  base: SessionEvent[];
  steps: ReplayStep[];
  /** The policy as run; null when the stored snapshot no longer parses. */
  policy: Policy | null;
  pending: Pick<PendingCall, "tool" | "miss"> | null;
}

const replaySelect = { id: true, sessionId: true, status: true, policySnapshot: true, pending: true } as const;

async function coverageSources(
  client: DbClient,
  replays: { id: string; sessionId: string; status: string; policySnapshot: unknown; pending: unknown }[],
): Promise<CoverageSource[]> {
  if (replays.length === 0) return [];
  const sessionIds = [...new Set(replays.map((r) => r.sessionId))];
  const [events, steps] = await Promise.all([
    client.event.findMany({
      where: { sessionId: { in: sessionIds } },
      orderBy: [{ sessionId: "asc" }, { seq: "asc" }],
    }),
    client.replayStep.findMany({
      where: { replayId: { in: replays.map((r) => r.id) }, kind: "tool_call" },
      orderBy: [{ replayId: "asc" }, { idx: "asc" }],
    }),
  ]);
  const rowsBySession = new Map<string, (typeof events)[number][]>();
  for (const row of events) {
    const list = rowsBySession.get(row.sessionId) ?? [];
    list.push(row);
    rowsBySession.set(row.sessionId, list);
  }
  // The stored form: coverage reads tool calls and cache keys, never a model call's whole input (rebuilding
  // every input of a long session costs the square of its length).
  const eventsBySession = new Map<string, SessionEvent[]>(
    [...rowsBySession].map(([id, rows]) => [id, rows.map(toSessionEvent)]),
  );
  const stepsByReplay = new Map<string, ReplayStep[]>();
  for (const row of steps) {
    const list = stepsByReplay.get(row.replayId) ?? [];
    list.push(toReplayStep(row));
    stepsByReplay.set(row.replayId, list);
  }
  return replays.map((r) => {
    const parsed = Policy.safeParse(r.policySnapshot);
    const pending = r.pending as Partial<PendingCall> | null;
    return {
      replayId: r.id,
      sessionId: r.sessionId,
      status: r.status,
      base: eventsBySession.get(r.sessionId) ?? [],
      steps: stepsByReplay.get(r.id) ?? [],
      policy: parsed.success ? parsed.data : null,
      pending: pending && typeof pending.tool === "string" ? { tool: pending.tool, miss: pending.miss ?? null } : null,
    };
  });
}

/** The one replay's coverage data, or null when there is no such replay. */
export async function replayCoverageSource(client: DbClient, replayId: string): Promise<CoverageSource | null> {
  const replay = await client.replay.findUnique({ where: { id: replayId }, select: replaySelect });
  if (!replay) return null;
  const [source] = await coverageSources(client, [replay]);
  return source ?? null;
}

/** Every replay of the experiment, in the experiment's order; null when there is no such experiment. */
export async function experimentCoverageSources(
  client: DbClient,
  experimentId: string,
): Promise<CoverageSource[] | null> {
  const experiment = await client.experiment.findUnique({
    where: { id: experimentId },
    select: { replays: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: replaySelect } },
  });
  if (!experiment) return null;
  return coverageSources(client, experiment.replays);
}
