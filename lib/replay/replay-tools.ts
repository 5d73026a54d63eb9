import { cacheKey } from "./canonical";
import type { SessionEvent, ToolCallRequest } from "./events";
import { deepEqual } from "./json";
import type { ApprovalEntry } from "./log";
import type { LiveCallRecord, ReplayStep, ReplayStop } from "./replay-types";
import { editsAt } from "./replay-model";
import { asRecord, type ReplayRun } from "./replay-run";
import type { ToolOutcome } from "./resolve-types";

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
  const baseCalls = recorded ? (run.base.toolCallsOf(recorded.seq) ?? NO_CALLS) : NO_CALLS;
  const paired: PairedCall[] = [];
  let allPaired = true;
  let pairedWithStep = 0;
  for (let k = 0; k < requested.length; k++) {
    const request = requested[k]!;
    const index = indexOfCall(baseCalls, request.id);
    let baseEvent: SessionEvent | null;
    if (index >= 0) {
      baseEvent = baseCalls[index]!;
      pairedWithStep++;
    } else {
      baseEvent = unlinkedCall(run, request.id);
      if (baseEvent === null) allPaired = false;
    }
    paired.push({ request, baseEvent });
  }
  if (paired.length > 1 && allPaired) sortBySeq(paired);
  // A recorded call of this step that the branch did not make is a divergence too.
  if (!run.conversation.structureDiverged && baseCalls.length > 0 && !coversAll(baseCalls, paired, pairedWithStep))
    run.conversation.structureDiverged = true;
  return paired;
}

const NO_CALLS: readonly SessionEvent[] = Object.freeze([]);

function indexOfCall(baseCalls: readonly SessionEvent[], id: string): number {
  for (let k = 0; k < baseCalls.length; k++) {
    const input = baseCalls[k]!.input;
    if (input !== null && typeof input === "object" && (input as { callId?: unknown }).callId === id) return k;
  }
  return -1;
}

/** Whether every recorded call of the step was paired (requests with the same id pair with the same recording). */
function coversAll(baseCalls: readonly SessionEvent[], paired: readonly PairedCall[], pairedWithStep: number): boolean {
  if (pairedWithStep < baseCalls.length) return false;
  outer: for (const e of baseCalls) {
    for (const p of paired) if (p.baseEvent === e) continue outer;
    return false;
  }
  return true;
}

/** Stable insertion sort by recorded seq (ties keep the requested order): a model step requests a handful of calls. */
function sortBySeq(paired: PairedCall[]): void {
  for (let k = 1; k < paired.length; k++) {
    const item = paired[k]!;
    const seq = item.baseEvent!.seq;
    let j = k - 1;
    while (j >= 0 && paired[j]!.baseEvent!.seq > seq) {
      paired[j + 1] = paired[j]!;
      j--;
    }
    paired[j + 1] = item;
  }
}

/** Importers that could not link a call to its model step leave parentSeq null: match by call id, once. */
function unlinkedCall(run: ReplayRun, id: string): SessionEvent | null {
  const unlinked = run.orphanCallsById.get(id);
  if (unlinked === undefined || run.claimedOrphans.has(unlinked.seq)) return null;
  run.claimedOrphans.add(unlinked.seq);
  return unlinked;
}

/**
 * Runs one requested call: its arguments (edited or as requested), its
 * answer (an edited result, or the resolver under the call's rule), then the
 * branch step. A stop, a pause for a fixture or a wait for approval ends the
 * run (null; the reason is in `run.stop` / `run.pending`). Synchronous unless
 * the answer needs something external (a lookup, a live run).
 */
export function runToolCall(
  run: ReplayRun,
  call: PairedCall,
  modelSeq: number,
): ReplayStep | null | Promise<ReplayStep | null> {
  const { request, baseEvent } = call;
  const plan = run.plan;
  const args = baseEvent !== null && plan.toolArgs.has(baseEvent.seq) ? plan.toolArgs.get(baseEvent.seq) : request.args;
  const key = cacheKey(request.name, args);
  if (baseEvent !== null && plan.toolResult.has(baseEvent.seq)) {
    const outcome = editedResult(run, call, key, plan.toolResult.get(baseEvent.seq));
    return toolStepOf(run, call, args, key, outcome, modelSeq);
  }
  const resolved = run.resolver.resolveCall(
    { tool: request.name, callId: request.id, args, cacheKey: key, step: run.steps.length },
    baseEvent,
  );
  if (resolved instanceof Promise)
    return resolved.then((outcome) => stepOrHalt(run, call, args, key, outcome, modelSeq));
  return stepOrHalt(run, call, args, key, resolved, modelSeq);
}

function stepOrHalt(
  run: ReplayRun,
  call: PairedCall,
  args: unknown,
  key: string | null,
  outcome: ToolOutcome,
  modelSeq: number,
): ReplayStep | null {
  if (outcome.type === "answer") return toolStepOf(run, call, args, key, outcome, modelSeq);
  if (outcome.type === "needs_live") throw new Error("unreachable: replay always runs with executors wired");
  haltOnCall(run, call, args, key, outcome);
  return null;
}

/** The analyst's result stands in for the call; identical later calls still get their own recordings. */
function editedResult(
  run: ReplayRun,
  call: PairedCall,
  key: string | null,
  output: unknown,
): Extract<ToolOutcome, { type: "answer" }> {
  const rule = run.resolver.ruleFor(call.request.name).rule;
  if (key !== null && rule.type === "history" && rule.scope === "baseline") {
    const state = run.resolver.occurrence(key, call.baseEvent);
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
  const occurrence = key !== null ? run.resolver.occurrence(key, baseEvent).branch++ : null;
  const fromRecording = outcome.recorded;
  const sameKey = baseEvent !== null && key !== null && key === baseEvent.cacheKey;
  const input =
    sameKey && baseEvent.name === request.name && request.id === asRecord(baseEvent.input).callId
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
    // The recording's own string when the key is the same (the one just hashed is then garbage at once, not kept).
    cacheKey: sameKey ? baseEvent.cacheKey : key,
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
