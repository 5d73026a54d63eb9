/**
 * Agent-driven replays: the token that lets one replay's agent call its endpoints, the steps its calls
 * become (appended one call at a time), its waits, its end and its abandonment after an idle timeout.
 */
import { type PendingCall, type ReplayStep, sha256Hex } from "@/lib/replay";
import { runFailure } from "@/lib/run-failures";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import type { CompactInput, Step } from "@/lib/sessions/inputs";
import { stepRows, toReplaySteps } from "./replay-steps";

/** The statuses in which an agent-driven replay still takes calls from its agent. */
export const AGENT_OPEN_STATUSES = ["waiting_for_agent", "running", "paused", "awaiting_approval"] as const;

/** The default idle timeout of an agent-driven replay, in seconds, when its policy sets none. */
export const DEFAULT_AGENT_IDLE_TIMEOUT_S = 600;

export function hashAgentToken(token: string): string {
  return sha256Hex(`branchpoint-agent-token:${token}`);
}

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** What the agent declared when the replay was created. */
export interface AgentDriver {
  adapter: string | null;
  version: string | null;
  command: string | null;
  capabilities: string[];
}

/** Turns a replay just stored into an agent-driven one, waiting for its agent (inside the storing transaction). */
export async function makeAgentDriven(
  client: DbClient,
  replayId: string,
  agent: { tokenHash: string; driver: AgentDriver; idleTimeoutS: number },
): Promise<void> {
  await client.replay.update({
    where: { id: replayId },
    data: {
      status: "waiting_for_agent",
      driver: "agent",
      agentTokenHash: agent.tokenHash,
      agentDriver: json(agent.driver),
      agentIdleTimeoutS: agent.idleTimeoutS,
    },
  });
}

/** The replay a token belongs to (id and status), or null for a token that belongs to none. */
export async function replayOfAgentToken(
  client: DbClient,
  token: string,
): Promise<{ id: string; status: string } | null> {
  if (token.length < 16 || token.length > 256) return null;
  return client.replay.findUnique({
    where: { agentTokenHash: hashAgentToken(token) },
    select: { id: true, status: true },
  });
}

/** Whether a replay is agent-driven. */
export async function isAgentDriven(client: DbClient, replayId: string): Promise<boolean> {
  const row = await client.replay.findUnique({ where: { id: replayId }, select: { driver: true } });
  return row?.driver === "agent";
}

/** What serving an agent's call reads of its replay (one row). */
export async function agentReplayRow(client: DbClient, replayId: string) {
  return client.replay.findUnique({
    where: { id: replayId },
    select: {
      id: true,
      status: true,
      driver: true,
      sessionId: true,
      policySnapshot: true,
      agentDriver: true,
      stepCount: true,
      stepsVersion: true,
      pending: true,
      error: true,
      createdBy: true,
      modelEndpointId: true,
      experimentId: true,
      session: { select: { agentId: true, agent: { select: { adapter: true } } } },
    },
  });
}
export type AgentReplayRow = NonNullable<Awaited<ReturnType<typeof agentReplayRow>>>;

/** The replay's steps so far, in order, with full model inputs. */
export async function agentReplaySteps(client: DbClient, replayId: string): Promise<ReplayStep[]> {
  const rows = await client.replayStep.findMany({ where: { replayId }, orderBy: { idx: "asc" } });
  return toReplaySteps(rows);
}

/** Another request (or another process) appended steps first: the caller rebuilds its state and tries again. */
export class AgentStepsMoved extends Error {
  constructor(replayId: string) {
    super(`The steps of replay ${replayId} changed meanwhile.`);
    this.name = "AgentStepsMoved";
  }
}

/**
 * Appends an agent's call as steps after the `expected` ones, and marks the replay running and seen now.
 * Fenced on the step count (a compare-and-set): throws `AgentStepsMoved`, writing nothing, when it moved.
 * Only while the replay is open; call inside a transaction. With the run's `compactor`, a model call's input
 * is stored as what it adds to the run's last one (as a server-driven run stores it), not whole each time.
 */
export async function appendAgentSteps(
  client: DbClient,
  replayId: string,
  expected: number,
  steps: readonly ReplayStep[],
  compactor?: (step: Step) => CompactInput,
): Promise<void> {
  const { count } = await client.replay.updateMany({
    where: { id: replayId, stepCount: expected, status: { in: [...AGENT_OPEN_STATUSES] } },
    data: {
      status: "running",
      pending: Prisma.DbNull,
      stepCount: expected + steps.length,
      stepsVersion: { increment: 1 },
      agentSeenAt: new Date(),
    },
  });
  if (count !== 1) throw new AgentStepsMoved(replayId);
  if (steps.length > 0) await client.replayStep.createMany({ data: stepRows(replayId, steps, compactor) });
}

/**
 * The agent asked again while the branch waits: seen now, and nothing else. Raw, so the row's `updatedAt`
 * stays: a fixture or decision the analyst is sending claims the row by it.
 */
export async function touchAgentReplay(client: DbClient, replayId: string): Promise<void> {
  await client.$executeRaw`UPDATE "Replay" SET "agentSeenAt" = ${new Date()} WHERE id = ${replayId}`;
}

/** The branch waits on a call (a fixture, an approval, the agent's own result of a passthrough call). */
export async function setAgentPending(
  client: DbClient,
  replayId: string,
  status: "running" | "paused" | "awaiting_approval",
  pending: PendingCall | { waitingFor: "agent_result" } | null,
): Promise<void> {
  await client.replay.updateMany({
    where: { id: replayId, status: { in: [...AGENT_OPEN_STATUSES] } },
    data: { status, pending: pending ? json(pending) : Prisma.DbNull, agentSeenAt: new Date() },
  });
}

/** Where an agent-driven branch stopped on a refused tool call (`fail`): kept on the open row until its agent ends it. */
export interface AgentStop {
  code: string;
  message: string;
  /** The branch step the refused call would have been. */
  step: number;
}

/**
 * A tool call was refused with `fail`: the branch stops there. The stop is written to the still-open row (its
 * agent ends the run, and the finish keeps it as the replay's error); the first stop stands.
 */
export async function stopAgentReplay(client: DbClient, replayId: string, stop: AgentStop): Promise<void> {
  await client.replay.updateMany({
    where: { id: replayId, status: { in: [...AGENT_OPEN_STATUSES] }, error: { equals: Prisma.DbNull } },
    data: { status: "running", error: json(stop), pending: Prisma.DbNull, agentSeenAt: new Date() },
  });
}

/** An agent-driven resume: the claimed replay (`queued` by claimReplayForResume) goes back to its agent, not to a worker. */
export async function returnResumeToAgent(client: DbClient, replayId: string): Promise<void> {
  await client.replay.updateMany({
    where: { id: replayId, status: "queued", driver: "agent" },
    data: { status: "running" },
  });
}

/** The end of an agent-driven replay: status, comparability, evidence, error; false when it was no longer open. */
export async function finishAgentReplayRow(
  client: DbClient,
  replayId: string,
  end: {
    status: string;
    comparability: string;
    evidence: unknown;
    error: { code: string; message: string } | null;
  },
): Promise<boolean> {
  const { count } = await client.replay.updateMany({
    where: { id: replayId, status: { in: [...AGENT_OPEN_STATUSES] } },
    data: {
      status: end.status,
      comparability: end.comparability,
      evidence: json(end.evidence),
      error: end.error ? json(end.error) : Prisma.DbNull,
      pending: Prisma.DbNull,
      finishedAt: new Date(),
      agentSeenAt: new Date(),
    },
  });
  return count === 1;
}

/**
 * Marks abandoned every open agent-driven replay (or just `replayId`) whose agent has been silent longer than
 * its idle timeout, as of `now`; returns their ids. One statement: no timer per replay. A branch already
 * stopped by a refused tool call (its agent never said it ended) ends failed with that stop instead.
 */
export async function abandonIdleAgentReplays(
  client: DbClient,
  now: Date = new Date(),
  replayId: string | null = null,
): Promise<string[]> {
  const failure = runFailure(
    "agent_abandoned",
    "The agent driving this replay made no call within its idle timeout (the policy's agentIdleTimeoutS), so the replay was abandoned; start a new one to run the agent again.",
  );
  const rows = await client.$queryRaw<{ id: string }[]>`
    UPDATE "Replay" SET status = CASE WHEN error IS NULL THEN 'abandoned' ELSE 'failed' END,
      comparability = 'non_comparable', pending = NULL,
      error = COALESCE(error, ${JSON.stringify(failure)}::jsonb), "finishedAt" = ${now}, "updatedAt" = ${now}
    WHERE driver = 'agent' AND status IN ('waiting_for_agent', 'running', 'paused', 'awaiting_approval')
      AND (${replayId}::text IS NULL OR id = ${replayId}::text)
      AND COALESCE("agentSeenAt", "createdAt") + make_interval(secs => COALESCE("agentIdleTimeoutS", ${DEFAULT_AGENT_IDLE_TIMEOUT_S})) < ${now}
    RETURNING id`;
  return rows.map((r) => r.id);
}
