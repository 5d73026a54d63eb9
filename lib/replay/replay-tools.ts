import { cacheKey } from "./canonical";
import type { SessionEvent, ToolCallRequest } from "./events";
import { deepEqual } from "./json";
import type { ApprovalEntry } from "./log";
import type { LiveCallRecord, ReplayStep, ReplayStop } from "./replay";
import { editsAt } from "./replay-model";
import { asRecord, type ReplayRun } from "./replay-run";
import type { ToolOutcome } from "./resolve";

/** A tool call the model requested, with the recorded call it pairs with (by call id), if any. */
export interface PairedCall {
  request: ToolCallRequest;
  baseEvent: SessionEvent | null;
}

/**
 * Pairs each requested call with its recording: the recorded model step's
 * calls by call id, or else a call the importer could not link to any model
 * step (claimed once). Calls run in the order the model requested them, so a
 * call the branch cannot answer stops it before a later one runs live; only
 * when every call pairs with a recording do they keep the record's order
 * (parallel calls recorded as they ran), so an unchanged branch reproduces its
 * base run exactly. Notes a structural divergence when the two sets of calls differ.
 */
export function pairToolCalls(
  run: ReplayRun,
  requested: readonly ToolCallRequest[],
  recorded: SessionEvent | null,
): PairedCall[] {
  const baseCalls = recorded ? (run.base.toolCallsByParent.get(recorded.seq) ?? NO_CALLS) : NO_CALLS;
  const paired: PairedCall[] = new Array<PairedCall>(requested.length);
  let allPaired = true;
  for (let k = 0; k < requested.length; k++) {
    const request = requested[k]!;
    const baseEvent = recordedCallFor(run, baseCalls, request.id);
    if (baseEvent === null) allPaired = false;
    paired[k] = { request, baseEvent };
  }
  if (paired.length > 1 && allPaired && !inSeqOrder(paired)) {
    // A stable sort by recorded seq (positions break ties, as requested).
    paired.sort((a, b) => a.baseEvent!.seq - b.baseEvent!.seq);
  }
  // A recorded call of this step that the branch did not make is a divergence too.
  if (!run.conversation.structureDiverged && baseCalls.length > 0) {
    for (const e of baseCalls) {
      if (!paired.some((p) => p.baseEvent === e)) {
        run.conversation.structureDiverged = true;
        break;
      }
    }
  }
  return paired;
}

const NO_CALLS: readonly SessionEvent[] = Object.freeze([]);

function inSeqOrder(paired: readonly PairedCall[]): boolean {
  for (let k = 1; k < paired.length; k++) if (paired[k - 1]!.baseEvent!.seq > paired[k]!.baseEvent!.seq) return false;
  return true;
}

function recordedCallFor(run: ReplayRun, baseCalls: readonly SessionEvent[], id: string): SessionEvent | null {
  for (const e of baseCalls) if (asRecord(e.input).callId === id) return e;
  // Importers that could not link a call to its model step leave parentSeq null: match by call id.
  const unlinked = run.orphanCallsById.get(id);
  if (unlinked === undefined || run.claimedOrphans.has(unlinked.seq)) return null;
  run.claimedOrphans.add(unlinked.seq);
  return unlinked;
}

/** What running one requested call gave: the branch step, or null when the run stopped or paused on it. */
export type ToolStepResult = ReplayStep | null;

/**
 * Runs one requested call: its arguments (edited or as requested), its
 * answer (an edited result, or the resolver under the call's rule), then the
 * branch step. A stop, a pause for a fixture or a wait for approval ends the
 * run (null; the reason is in `run.stop` / `run.pending`).
 */
export async function runToolCall(run: ReplayRun, call: PairedCall, modelSeq: number): Promise<ToolStepResult> {
  const { request, baseEvent } = call;
  const plan = run.plan;
  const args = baseEvent !== null && plan.toolArgs.has(baseEvent.seq) ? plan.toolArgs.get(baseEvent.seq) : request.args;
  const key = cacheKey(request.name, args);

  let outcome: ToolOutcome;
  if (baseEvent !== null && plan.toolResult.has(baseEvent.seq)) {
    outcome = editedResult(run, request.name, key, plan.toolResult.get(baseEvent.seq));
  } else {
    const resolved = run.resolver.resolve({
      tool: request.name,
      callId: request.id,
      args,
      cacheKey: key,
      step: run.steps.length,
    });
    outcome = resolved instanceof Promise ? await resolved : resolved;
  }

  if (outcome.type === "answer") return toolStepOf(run, call, args, key, outcome, modelSeq);
  if (outcome.type === "needs_live") throw new Error("unreachable: replay always runs with executors wired");
  haltOnCall(run, call, args, key, outcome);
  return null;
}

/** The analyst's result stands in for the call; identical later calls still get their own recordings. */
function editedResult(run: ReplayRun, tool: string, key: string | null, output: unknown): ToolOutcome {
  const rule = run.resolver.ruleFor(tool).rule;
  if (key !== null && rule.type === "history" && rule.scope === "baseline") {
    const state = run.resolver.occurrence(key);
    if ((state.recordings?.length ?? 0) > state.used) state.used++;
  }
  return { type: "answer", source: "edit", output, error: null, miss: null };
}

/** A call the branch cannot answer now: a stop (failed or out of budget), a pause for a fixture, a wait for approval. */
export function haltOnCall(
  run: ReplayRun,
  call: PairedCall,
  args: unknown,
  key: string | null,
  outcome: Exclude<ToolOutcome, { type: "answer" | "needs_live" }>,
): void {
  const stopCall = (): NonNullable<ReplayStop["call"]> => ({
    tool: call.request.name,
    callId: call.request.id,
    args,
    cacheKey: key,
    baseSeq: call.baseEvent?.seq ?? null,
  });
  if (outcome.type === "stop") {
    run.halt(outcome.code === "budget_live_calls" ? "budget_exhausted" : "failed", outcome.code, outcome.message, {
      call: stopCall(),
      miss: outcome.miss,
    });
    return;
  }
  const miss = outcome.miss;
  const closest = miss?.closest[0];
  const paused = outcome.type === "pause";
  run.status = paused ? "paused" : "awaiting_approval";
  const step = run.steps.length;
  const pending = {
    waitingFor: paused ? ("fixture" as const) : ("approval" as const),
    ...stopCall(),
    step,
    miss,
    prefill: closest ? { seq: closest.seq, output: closest.output, error: closest.error } : null,
    message: paused ? `Waiting for a fixture: ${miss?.message ?? ""}` : (outcome as { message: string }).message,
  };
  run.pending = pending;
  run.stop = { code: run.status, message: pending.message, step, call: stopCall(), miss };
}

/** The branch step an answered call becomes; notes live calls in the evidence. */
export function toolStepOf(
  run: ReplayRun,
  call: PairedCall,
  args: unknown,
  key: string | null,
  outcome: Extract<ToolOutcome, { type: "answer" }>,
  modelSeq: number,
): ReplayStep {
  const { request, baseEvent } = call;
  const failed = outcome.error !== null;
  const occurrence = key !== null ? run.resolver.occurrence(key).branch++ : null;
  const fromRecording = outcome.recorded;
  const input =
    baseEvent !== null &&
    key !== null &&
    key === baseEvent.cacheKey &&
    baseEvent.name === request.name &&
    request.id === asRecord(baseEvent.input).callId
      ? baseEvent.input
      : { callId: request.id, args };
  const status = failed ? "failed" : "completed";
  const equalsBase =
    baseEvent !== null &&
    input === baseEvent.input &&
    baseEvent.status === status &&
    (outcome.output === baseEvent.output || deepEqual(outcome.output, baseEvent.output)) &&
    (outcome.error === baseEvent.error || deepEqual(outcome.error, baseEvent.error));
  const step: ReplayStep = {
    seq: run.steps.length,
    kind: "tool_call",
    name: request.name,
    input,
    output: outcome.output,
    error: outcome.error,
    status,
    startedAt: fromRecording?.startedAt ?? null,
    durationMs: fromRecording?.durationMs ?? outcome.live?.durationMs ?? null,
    usage: fromRecording?.usage ?? null,
    parentSeq: modelSeq,
    cacheKey: key,
    occurrence,
    source: outcome.source,
    baseSeq: baseEvent?.seq ?? null,
    miss: outcome.miss,
    equalsBase,
    edits: baseEvent ? editsAt(run, baseEvent.seq, TOOL_EDIT_OPS) : [],
  };
  if (outcome.fixture) step.fixtureId = outcome.fixture.id;
  if (outcome.live) step.logEntryId = outcome.live.logEntryId;
  if (outcome.approval) step.approvalId = outcome.approval.id;
  if (outcome.live) {
    if (!outcome.live.fromLog && outcome.source === "live") run.liveExecutions++;
    run.liveCalls.push({
      step: step.seq,
      kind: outcome.source === "llm" ? "simulator" : "tool",
      name: request.name,
      callId: request.id,
      fromLog: outcome.live.fromLog,
      logEntryId: outcome.live.logEntryId,
      approval: outcome.approval ? pickApproval(outcome.approval) : null,
    });
  }
  return step;
}

const TOOL_EDIT_OPS: ReplayStep["edits"] = ["replace_tool_args", "replace_tool_result"];

function pickApproval(a: ApprovalEntry): LiveCallRecord["approval"] {
  return { id: a.id, by: a.by, at: a.at, decision: a.decision, ...(a.note !== undefined ? { note: a.note } : {}) };
}
