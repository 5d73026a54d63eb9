/** Resuming a paused branch: a fixture for the call it waits on, or a decision on a live call awaiting approval. */
import { recordAudit } from "@/lib/db/audit";
import { randomUUID } from "node:crypto";
import { type ApprovalEntry, type PendingCall } from "@/lib/replay";
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transactions";
import { appendLogEntries, claimReplayForResume, insertFixture, type NewFixture } from "@/lib/db/replay-writes";
import { getReplayState as readReplayState } from "@/lib/db/replays";
import { isAgentDriven, returnResumeToAgent } from "@/lib/db/agent-replays";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import type { QueueDeps } from "../job-queue";
import { type DecideApprovalInput, type SupplyFixtureInput } from "./replay-inputs";
import { enqueueReplaysFor } from "./run-queued-replay";

/**
 * Paused or awaiting approval → queued, if nobody changed the replay since it was read (else 409, nothing
 * stored). An agent-driven replay goes back to `running` instead: its agent asks for the call again and
 * gets the answer; no worker runs it. Answers whether a worker should be queued.
 */
async function claimForResume(tx: DbClient, replayId: string, updatedAt: Date): Promise<boolean> {
  if (!(await claimReplayForResume(tx, replayId, updatedAt)))
    throw new AppError(
      "conflict",
      "The replay is already being resumed (another fixture or decision was sent first); reload and try again.",
    );
  if (!(await isAgentDriven(tx, replayId))) return true;
  await returnResumeToAgent(tx, replayId);
  return false;
}

async function pendingOf(prisma: Db, replayId: string, waitingFor: PendingCall["waitingFor"]) {
  const state = await readReplayState(prisma, replayId);
  if (!state) throw notFound("replay", replayId);
  const pending = state.pending as PendingCall | null;
  const wanted = waitingFor === "fixture" ? "paused" : "awaiting_approval";
  if (state.status !== wanted || !pending || pending.waitingFor !== waitingFor) {
    const what = waitingFor === "fixture" ? "a fixture" : "an approval";
    throw new AppError(
      "wrong_state",
      `Replay "${replayId}" is ${state.status.replaceAll("_", " ")} and waits for no ${waitingFor}; only a ${wanted.replaceAll("_", " ")} replay takes ${what}.`,
    );
  }
  return { state, pending };
}

/** Stores a fixture for the pending call and resumes the branch (a resume). Nothing changes when it is refused. */
export async function supplyFixture(
  principal: Principal,
  input: SupplyFixtureInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<NewFixture> {
  authorize(principal, "replays.run");
  const { replayId } = input;
  const { state, pending } = await pendingOf(prisma, replayId, "fixture");
  if (
    (input.callId !== undefined && input.callId !== pending.callId) ||
    (input.tool !== undefined && input.tool !== pending.tool)
  ) {
    throw new AppError(
      "wrong_state",
      `The branch waits for ${pending.tool} (call ${pending.callId}) at step ${pending.step}, not ${input.tool ?? pending.tool} (call ${input.callId ?? pending.callId}).`,
      [
        {
          path: input.callId !== pending.callId ? "callId" : "tool",
          message: `expected ${input.callId !== pending.callId ? pending.callId : pending.tool}`,
        },
      ],
    );
  }
  const fixture: NewFixture = {
    id: `fx_${randomUUID()}`,
    toolName: pending.tool,
    callId: pending.callId,
    cacheKey: pending.cacheKey,
    stepIdx: pending.step,
    output: input.error ? null : input.output,
    error: input.error ?? null,
    author: principal.name,
    note: input.note,
    provenance: input.provenance ?? { source: "api" },
    createdAt: new Date(),
  };
  // The fixture is stored with the claim (paused → queued) before anything runs, so a run that is
  // killed keeps it; of two concurrent fixtures only the first claims the replay.
  const queue = await withTransaction(prisma, async (tx) => {
    const toWorker = await claimForResume(tx, replayId, state.updatedAt);
    await insertFixture(tx, replayId, fixture);
    return toWorker;
  });
  if (queue) await enqueueReplaysFor(prisma, [replayId], deps);
  return fixture;
}

/** Records an approval decision for the pending live call (with actor and time) and resumes the branch (a resume). */
export async function decideApproval(
  principal: Principal,
  input: DecideApprovalInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<ApprovalEntry> {
  authorize(principal, "replays.run");
  const { replayId } = input;
  const { state, pending } = await pendingOf(prisma, replayId, "approval");
  if (input.callId !== undefined && input.callId !== pending.callId) {
    throw new AppError(
      "wrong_state",
      `The branch waits for a decision on ${pending.tool} (call ${pending.callId}), not call ${input.callId}.`,
    );
  }
  const approval: ApprovalEntry = {
    type: "approval",
    id: `ap_${randomUUID()}`,
    at: new Date().toISOString(),
    step: pending.step,
    tool: pending.tool,
    cacheKey: pending.cacheKey,
    decision: input.decision,
    by: principal.name,
    ...(input.note ? { note: input.note } : {}),
  };
  const queue = await withTransaction(prisma, async (tx) => {
    const toWorker = await claimForResume(tx, replayId, state.updatedAt);
    await appendLogEntries(tx, replayId, [approval], principal.name);
    await recordAudit(tx, {
      actorId: principal.userId,
      actorName: principal.name,
      action: approval.decision === "approved" ? "live_call.approved" : "live_call.rejected",
      target: replayId,
      detail: { tool: approval.tool, callId: pending.callId, ...(approval.note ? { note: approval.note } : {}) },
    });
    return toWorker;
  });
  if (queue) await enqueueReplaysFor(prisma, [replayId], deps);
  return approval;
}
