/**
 * The tool-call contract of an agent-driven branch: the agent asks before it runs a tool, and the engine's
 * one resolver answers under the branch's per-tool policy, exactly as in a server-driven replay:
 * `return` (history, static, fixture, llm, error_result, blocked), `execute` (passthrough: the agent runs
 * the tool and posts its result), `fail` (on_miss fail, or a rule the driver cannot apply), or `wait`
 * (a fixture or an approval the analyst gives in the dashboard; the same call asked again gets it).
 */
import { z } from "zod";
import {
  cacheKey,
  deepEqual,
  resultEntryFields,
  type EventError,
  type PendingCall,
  type ReplayStep,
  type SessionEvent,
  type ToolCall,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import { setAgentPending, touchAgentReplay } from "@/lib/db/agent-replays";
import { withTransaction } from "@/lib/db/transactions";
import { appendLogEntries } from "@/lib/db/replay-writes";
import { AppError } from "@/lib/errors";
import type { Principal } from "../principal";
import {
  AgentExecutes,
  branchStop,
  noteToolStep,
  stopBranch,
  stoppedMessage,
  storeSteps,
  underReplay,
  type AgentRun,
  type AwaitedCall,
} from "./agent-run";
import { refuseNul } from "../replays/replay-inputs";
import { agentOnly } from "./agent-access";

export const ToolCallRequestBody = z
  .strictObject({
    tool: z.string().trim().min(1, "name the tool").max(200),
    args: z.unknown().optional(),
    callId: z.string().trim().min(1).max(200).optional(),
  })
  .superRefine(refuseNul);
export type ToolCallRequestBody = z.infer<typeof ToolCallRequestBody>;

export const ToolResultBody = z
  .strictObject({
    output: z.unknown().optional(),
    error: z.strictObject({ type: z.string().min(1).max(200).optional(), message: z.string().max(20_000) }).optional(),
    durationMs: z.number().nonnegative().max(86_400_000).optional(),
  })
  .superRefine(refuseNul)
  .refine((v) => (v.output !== undefined) !== (v.error !== undefined), {
    message: 'Send exactly one of "output" (the tool\'s result) and "error" ({ type?, message }).',
    path: ["output"],
  });
export type ToolResultBody = z.infer<typeof ToolResultBody>;

/** How long an agent waiting for a fixture or an approval waits before it asks again. */
export const WAIT_RETRY_MS = 1000;

export type ToolCallAnswer =
  | { action: "return"; source: string; output: unknown; error: EventError | null; step: number }
  | { action: "execute"; callId: string }
  | { action: "fail"; code: string; message: string }
  | { action: "wait"; retryAfterMs: number; waitingFor: "fixture" | "approval"; message: string };

/**
 * The recorded call a branch call pairs with: one of the recorded calls, not paired yet, of the model calls the
 * branch paired so far (the last one's first: concurrent agents' tool calls interleave), by call id; a client
 * that sends no id (an MCP client, a plain script) pairs by the call itself, the first recorded call with the
 * same tool and arguments.
 */
function pairedRecording(
  run: AgentRun,
  callId: string | undefined,
  tool: string,
  key: string | null,
): SessionEvent | null {
  for (let k = run.openModels.length - 1; k >= 0; k--) {
    const open = (run.base.toolCallsOf(run.openModels[k]!.seq) ?? []).filter((e) => !run.pairedCalls.has(e.seq));
    const found =
      callId !== undefined
        ? open.find((e) => recordedCallId(e) === callId)
        : open.find((e) => e.name === tool && e.cacheKey === key);
    if (found) return found;
  }
  return null;
}

function recordedCallId(event: SessionEvent): string | undefined {
  const id = (event.input as { callId?: unknown } | null)?.callId;
  return typeof id === "string" ? id : undefined;
}

/** The branch step an answered call becomes (the fields the engine's own tool steps have). */
function toolStep(
  run: AgentRun,
  call: ToolCall,
  baseEvent: SessionEvent | null,
  answer: { source: ReplayStep["source"]; output: unknown; error: EventError | null; miss: ReplayStep["miss"] },
  extra: { fixtureId?: string; logEntryId?: string; approvalId?: string; durationMs?: number | null },
): ReplayStep {
  const sameCall =
    baseEvent !== null &&
    call.cacheKey === baseEvent.cacheKey &&
    baseEvent.name === call.tool &&
    (baseEvent.input as { callId?: unknown } | null)?.callId === call.callId;
  const input = sameCall ? baseEvent.input : { callId: call.callId, args: call.args };
  const status = answer.error ? "failed" : "completed";
  const step: ReplayStep = {
    seq: call.step,
    kind: "tool_call",
    name: call.tool,
    input,
    output: answer.output,
    error: answer.error,
    status,
    startedAt: null,
    durationMs: extra.durationMs ?? null,
    usage: null,
    // The branch step that paired with the recorded call's model call (concurrent agents interleave).
    parentSeq:
      (baseEvent?.parentSeq != null ? run.pairedModels.get(baseEvent.parentSeq) : undefined) ??
      run.lastModel?.seq ??
      null,
    cacheKey: call.cacheKey,
    occurrence: null,
    source: answer.source,
    baseSeq: baseEvent?.seq ?? null,
    miss: answer.miss,
    equalsBase:
      sameCall &&
      baseEvent.status === status &&
      deepEqual(answer.output, baseEvent.output) &&
      deepEqual(answer.error, baseEvent.error),
    edits: [],
  };
  if (extra.fixtureId) step.fixtureId = extra.fixtureId;
  if (extra.logEntryId) step.logEntryId = extra.logEntryId;
  if (extra.approvalId) step.approvalId = extra.approvalId;
  return step;
}

/** The seed's rule: a non-passthrough rule needs a runtime that intercepts tool calls, declared by the driver. */
/** What a waiting call records of the call it waits for. */
function callFields(call: ToolCall, baseEvent: SessionEvent | null) {
  return {
    tool: call.tool,
    callId: call.callId,
    args: call.args,
    cacheKey: call.cacheKey,
    step: call.step,
    baseSeq: baseEvent?.seq ?? null,
  };
}

function capabilityRefusal(run: AgentRun, tool: string): ToolCallAnswer | null {
  const { rule, path } = run.resolver.ruleFor(tool);
  if (rule.type === "passthrough" || run.driver.capabilities.includes("tool_policies")) return null;
  return {
    action: "fail",
    code: "tool_policies_capability_missing",
    message: `The policy answers "${tool}" with a \`${rule.type}\` rule (${path.join(".")}), which needs a runtime that intercepts tool calls, and the agent driving this replay did not declare the "tool_policies" capability when the replay was created. Declare it (agent.capabilities) if your adapter applies the contract's answers, or use a passthrough rule.`,
  };
}

/** Resolves one call and turns the outcome into the contract's answer (storing the step, or the wait). */
async function resolveAndAnswer(
  prisma: Db,
  run: AgentRun,
  call: ToolCall,
  baseEvent: SessionEvent | null,
  durationMs?: number,
): Promise<ToolCallAnswer> {
  let outcome;
  try {
    outcome = await run.resolver.resolveCall(call, baseEvent);
  } catch (error) {
    if (!(error instanceof AgentExecutes)) throw error;
    const awaited: AwaitedCall = { waitingFor: "agent_result", ...callFields(call, baseEvent) };
    await setAgentPending(prisma, run.replayId, "running", awaited);
    run.awaiting.set(call.callId, awaited);
    return { action: "execute", callId: call.callId };
  }
  switch (outcome.type) {
    case "answer": {
      run.waiting = false;
      const step = toolStep(run, call, baseEvent, outcome, {
        ...(outcome.fixture ? { fixtureId: outcome.fixture.id } : {}),
        ...(outcome.live ? { logEntryId: outcome.live.logEntryId, durationMs: outcome.live.durationMs } : {}),
        ...(outcome.approval ? { approvalId: outcome.approval.id } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      });
      if (step.cacheKey !== null) step.occurrence = run.resolver.occurrence(step.cacheKey, baseEvent).branch;
      await storeSteps(prisma, run, [step]);
      noteToolStep(run, step, baseEvent);
      return { action: "return", source: outcome.source, output: outcome.output, error: outcome.error, step: step.seq };
    }
    case "stop":
      await stopBranch(prisma, run, { code: outcome.code, message: outcome.message, step: call.step });
      return { action: "fail", code: outcome.code, message: outcome.message };
    case "needs_live":
      throw new Error("unreachable: the agent's resolver always has executors");
    case "pause":
    case "awaiting_approval": {
      const paused = outcome.type === "pause";
      const closest = outcome.miss?.closest[0];
      const message = paused
        ? `Waiting for a fixture: ${outcome.miss?.message ?? ""}`
        : (outcome as { message: string }).message;
      const pending: PendingCall = {
        waitingFor: paused ? "fixture" : "approval",
        ...callFields(call, baseEvent),
        miss: outcome.miss,
        prefill: closest ? { seq: closest.seq, output: closest.output, error: closest.error } : null,
        message,
      };
      const status = paused ? "paused" : "awaiting_approval";
      const stored = run.row.pending as PendingCall | null;
      // Asked again while it waits: the same wait, and the row left as the dashboard read it.
      if (run.row.status === status && stored?.callId === call.callId && stored.step === call.step)
        await touchAgentReplay(prisma, run.replayId);
      else await setAgentPending(prisma, run.replayId, status, pending);
      run.waiting = true;
      return { action: "wait", retryAfterMs: WAIT_RETRY_MS, waitingFor: pending.waitingFor, message };
    }
  }
}

/** `POST {toolCallsUrl}`: the answer to one tool call the agent is about to make. */
export async function agentToolCall(
  principal: Principal,
  replayId: string,
  body: ToolCallRequestBody,
  prisma: Db,
  /** `mcp_proxy`: Branchpoint's own MCP proxy asks, and it intercepts every call itself (no capability needed). */
  options: { interceptor?: "mcp_proxy" } = {},
): Promise<ToolCallAnswer> {
  agentOnly(principal, replayId);
  return underReplay(prisma, replayId, async (run) => {
    const stop = branchStop(run);
    if (stop) return { action: "fail", code: stop.code, message: stoppedMessage(stop) };
    const args = body.args ?? {};
    const key = cacheKey(body.tool, args);
    const refused = options.interceptor === "mcp_proxy" ? null : capabilityRefusal(run, body.tool);
    if (refused?.action === "fail") {
      await stopBranch(prisma, run, { code: refused.code, message: refused.message, step: run.steps.length });
      return refused;
    }
    // A call handed to the agent and asked again (a retry) is the same call: run it, then post its result.
    for (const awaited of run.awaiting.values())
      if (awaited.tool === body.tool && awaited.cacheKey === key && (!body.callId || body.callId === awaited.callId))
        return { action: "execute", callId: awaited.callId };
    const pending = run.row.pending as PendingCall | null;
    const given =
      body.callId ?? (pending && pending.tool === body.tool && pending.cacheKey === key ? pending.callId : undefined);
    const baseEvent = pairedRecording(run, given, body.tool, key);
    // Without an id of its own, the call takes its recording's (so it compares as the same call).
    const callId = given ?? (baseEvent ? recordedCallId(baseEvent) : undefined) ?? `call_${run.steps.length}`;
    const call: ToolCall = { tool: body.tool, callId, args, cacheKey: key, step: run.steps.length };
    return resolveAndAnswer(prisma, run, call, baseEvent);
  });
}

/** `POST {toolCallsUrl}/{callId}/result`: the result of a passthrough call the agent ran itself. */
export async function agentToolResult(
  principal: Principal,
  replayId: string,
  callId: string,
  body: ToolResultBody,
  prisma: Db,
): Promise<ToolCallAnswer> {
  agentOnly(principal, replayId);
  return underReplay(prisma, replayId, async (run) => {
    const awaited = run.awaiting.get(callId);
    if (!awaited)
      throw new AppError(
        "wrong_state",
        `No call "${callId}" waits for its result: post a result only for a call the contract answered with "execute".`,
        [{ path: "callId", message: "not a call handed to the agent" }],
      );
    const call: ToolCall = {
      tool: awaited.tool,
      callId: awaited.callId,
      args: awaited.args,
      cacheKey: awaited.cacheKey,
      step: awaited.step,
    };
    const answer = body.error
      ? { error: { type: body.error.type ?? "ToolError", message: body.error.message } }
      : { output: body.output };
    const entry = {
      type: "live_tool_result" as const,
      ...resultEntryFields(
        `live:${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`,
        new Date().toISOString(),
        call,
        { ...answer, ...(body.durationMs !== undefined ? { durationMs: body.durationMs } : {}) },
      ),
    };
    await withTransaction(prisma, (tx) => appendLogEntries(tx, replayId, [entry], run.row.createdBy));
    run.storedLog.add(entry.id);
    run.log.append(entry);
    run.awaiting.delete(callId);
    const baseEvent = awaited.baseSeq !== null ? (run.base.bySeq.get(awaited.baseSeq) ?? null) : null;
    return resolveAndAnswer(prisma, run, call, baseEvent, body.durationMs);
  });
}
