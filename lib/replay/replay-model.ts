import { canonicalJson } from "./canonical";
import type { Message, SessionEvent, Usage } from "./events";
import { deepEqual } from "./json";
import type { ModelRequest, ProbeReport, ReplayStep } from "./replay-types";
import { givenMessages, sharedPrefixLength, type InputPrefix, type MessageList } from "./message-list";
import type { RebuiltInput } from "./replay-conversation";
import { asRecord, guarded, NO_EDITS, type ReplayRun } from "./replay-run";
import type { StepSource } from "./resolve-types";

/** What a model step produced, before it becomes a branch step. */
export interface ModelOutcome {
  output: Message;
  source: StepSource;
  name: string;
  /**
   * The input sent: the recorded input object itself when it stands, else the
   * recorded input's other fields with `messages` as `list` adds them (the full
   * list is built once the run ends, and only for a full replay: see `stepInputsOut`).
   */
  input: unknown;
  /** The input's message list; null when it has no `messages` array; "recorded": the recorded input's (built when needed). */
  list: MessageList | null | "recorded";
  usage: Usage | null;
  startedAt: string | null;
  durationMs: number | null;
  logEntryId?: string;
}

/** Applies a system prompt edit recorded at this model step, if any. */
function applySystemPromptEdit(run: ReplayRun, recorded: SessionEvent | null): void {
  if (recorded !== null && run.plan.systemPrompt.has(recorded.seq))
    run.conversation.setSystemPrompt(run.plan.systemPrompt.get(recorded.seq));
}

/** Rebuilds model step i's input and notes its drift in the evidence. */
function inputOf(run: ReplayRun, i: number, recorded: SessionEvent | null): RebuiltInput {
  applySystemPromptEdit(run, recorded);
  const rebuilt = run.conversation.reconstructInput(i, recorded, recorded ? run.baseListOf(recorded) : null);
  if (rebuilt.drift.length > 0)
    run.inputDrift.push({
      step: run.steps.length,
      modelStep: i,
      baseSeq: recorded?.seq ?? null,
      reasons: rebuilt.drift,
    });
  return rebuilt;
}

/** The recorded (or edited) output of a model step, as copied under the record-copying policies. */
function copiedOutcome(
  run: ReplayRun,
  recorded: SessionEvent,
  input: unknown,
  list: ModelOutcome["list"],
): ModelOutcome {
  const edited = run.plan.modelOutput.get(recorded.seq);
  return edited
    ? {
        output: edited,
        source: "edit",
        name: recorded.name,
        input,
        list,
        usage: null,
        startedAt: null,
        durationMs: null,
      }
    : {
        output: recorded.output as Message,
        source: "recorded",
        name: recorded.name,
        input,
        list,
        usage: recorded.usage,
        startedAt: recorded.startedAt,
        durationMs: recorded.durationMs,
      };
}

/** recorded-only: copy the captured output (synchronous: the common path allocates no promise). */
export function recordedModelStep(run: ReplayRun, i: number, recorded: SessionEvent): ModelOutcome {
  if (!run.plan.systemPrompt.has(recorded.seq) && run.conversation.recordedInputStands())
    return copiedOutcome(run, recorded, recorded.input, "recorded");
  const { list, drift } = inputOf(run, i, recorded);
  return drift.length === 0
    ? copiedOutcome(run, recorded, recorded.input, list)
    : copiedOutcome(run, recorded, { ...asRecord(recorded.input), messages: list?.added ?? [] }, list);
}

/**
 * Every other model policy: blocked, determinism probe, provider fixtures,
 * fork-live and the live ones. Null when the run stopped (the reason is in
 * `run.stop`) or there is no step to take.
 */
export async function modelStep(
  run: ReplayRun,
  i: number,
  recorded: SessionEvent | null,
): Promise<ModelOutcome | null> {
  const { policy, plan, input } = run;
  const rebuilt = inputOf(run, i, recorded);
  const { list, drift } = rebuilt;
  const recordedInput = recorded ? asRecord(recorded.input) : {};
  const inputFor = (extra: Record<string, unknown> = {}) =>
    drift.length === 0 && Object.keys(extra).length === 0 && recorded
      ? recorded.input
      : { ...recordedInput, messages: list?.added ?? [], ...extra };

  const edited = recorded ? plan.modelOutput.get(recorded.seq) : undefined;
  const recordedModel = recorded ? (stringOr(recordedInput.model) ?? recorded.name) : undefined;
  const editOutcome = (name: string): ModelOutcome => ({
    output: edited!,
    source: "edit",
    name,
    input: inputFor(),
    list: list,
    usage: null,
    startedAt: null,
    durationMs: null,
  });

  switch (policy.model) {
    case "blocked":
      run.halt("blocked", "model_blocked", `The model policy is "blocked": no model step may run (model step ${i}).`);
      return null;
    case "recorded-only":
    case "determinism-probe": {
      if (!recorded) return null;
      if (policy.model === "determinism-probe") await probe(run, i, recorded, recordedModel);
      return copiedOutcome(run, recorded, inputFor(), list);
    }
    case "provider-fixture": {
      const fixture = input.providerFixtures?.find((f) => f.modelStep === i);
      if (edited) return editOutcome(recorded?.name ?? "edit");
      if (!fixture) {
        run.halt("failed", "provider_fixture_missing", `No provider fixture for model step ${i}.`);
        return null;
      }
      return {
        output: fixture.output,
        source: "provider_fixture",
        name: fixture.model ?? recorded?.name ?? "provider-fixture",
        input: inputFor(),
        list: list,
        usage: null,
        startedAt: null,
        durationMs: null,
      };
    }
    case "recorded-until-divergence": {
      // Copy while the model sees what it saw in the record; once an input differs, run live from there on
      // (or from the model step the policy names, even where nothing changed: what a blame search probes).
      const liveFromHere = policy.liveFromModelStep !== undefined && i >= policy.liveFromModelStep;
      if (run.fork === null && recorded && drift.length === 0 && !liveFromHere)
        return copiedOutcome(run, recorded, inputFor(), list);
      if (run.fork === null && !edited)
        run.fork = {
          seq: run.steps.length,
          modelStep: i,
          baseSeq: recorded?.seq ?? null,
          reasons: drift.length > 0 ? drift : liveFromHere && recorded ? ["live_from_step"] : ["past_the_record"],
        };
    }
    // falls through: from the fork on, the model runs live
    case "pinned-live":
    case "compatible-live": {
      const model = policy.liveModel ?? recordedModel;
      const temperature = policy.temperatureOverride ?? numberOr(recordedInput.temperature);
      const extra = {
        ...(model !== undefined ? { model } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
      };
      if (edited) return editOutcome(recorded?.name ?? model ?? "edit");
      const request: ModelRequest = {
        modelStep: i,
        step: run.steps.length,
        // Built when read: a resume from the log never needs the whole conversation.
        get messages() {
          return rebuilt.messages;
        },
        model,
        temperature,
        tools: Array.isArray(recordedInput.tools) ? recordedInput.tools : undefined,
        recorded,
      };
      const liveInput = inputFor(extra);
      const outcome = await liveModelOutcome(run, request, liveInput, list);
      if (outcome === null) return null;
      run.liveTokens += (outcome.usage?.inputTokens ?? 0) + (outcome.usage?.outputTokens ?? 0);
      run.liveCost += outcome.usage?.costUsd ?? 0;
      if (recordedModel !== undefined && outcome.name !== recordedModel) run.drifting = true;
      return outcome;
    }
  }
}

/**
 * A live model step: the output the branch log holds for it (a resume), or a
 * new call of the model executor, appended to the log. Null when the live-call
 * budget is spent (the run halts).
 */
export async function liveModelOutcome(
  run: ReplayRun,
  request: ModelRequest,
  input: unknown,
  list: MessageList | null,
): Promise<ModelOutcome | null> {
  const i = request.modelStep;
  const step = run.steps.length;
  const logged = run.log.liveModelOutput(i);
  if (logged && logged.step === step) {
    run.liveCalls.push({
      step,
      kind: "model",
      name: logged.model,
      callId: null,
      fromLog: true,
      logEntryId: logged.id,
      approval: null,
    });
    return {
      output: logged.output,
      source: "live",
      name: logged.model,
      input,
      list,
      usage: logged.usage,
      startedAt: null,
      durationMs: logged.durationMs,
      logEntryId: logged.id,
    };
  }
  if (!run.liveAllowed()) {
    run.halt(
      "budget_exhausted",
      "budget_live_calls",
      `maxLiveCalls (${run.policy.maxLiveCalls}) reached before model step ${i}.`,
    );
    return null;
  }
  run.liveExecutions++;
  const result = await guarded(`model executor (model step ${i}, branch step ${step})`, () =>
    run.input.executors!.model!(request),
  );
  const id = `model:${i}:${step}`;
  const usedModel = result.model ?? request.model ?? "unknown";
  run.log.append({
    type: "live_model_output",
    id,
    at: run.now(),
    step,
    modelStep: i,
    model: usedModel,
    output: result.output,
    usage: result.usage ?? null,
    durationMs: result.durationMs ?? null,
  });
  run.liveCalls.push({
    step,
    kind: "model",
    name: usedModel,
    callId: null,
    fromLog: false,
    logEntryId: id,
    approval: null,
  });
  return {
    output: result.output,
    source: "live",
    name: usedModel,
    input,
    list,
    usage: result.usage ?? null,
    startedAt: null,
    durationMs: result.durationMs ?? null,
    logEntryId: id,
  };
}

/** determinism-probe: runs the recorded input several times (or reads the runs from the log) and reports how they agree. */
export async function probe(
  run: ReplayRun,
  i: number,
  recorded: SessionEvent,
  model: string | undefined,
): Promise<void> {
  const { policy } = run;
  const runs = policy.probeRuns ?? 3;
  const step = run.steps.length;
  const logged = run.log.probeOutputs(i);
  let outputs = logged?.outputs;
  let fromLog = true;
  let id = logged?.id ?? `probe:${i}`;
  if (!outputs) {
    fromLog = false;
    outputs = [];
    const recordedInput = asRecord(recorded.input);
    const temperature = policy.temperatureOverride ?? numberOr(recordedInput.temperature);
    let usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
    for (let r = 0; r < runs; r++) {
      const request: ModelRequest = {
        modelStep: i,
        step,
        messages: run.baseListOf(recorded)?.toArray() ?? [],
        model,
        temperature,
        tools: Array.isArray(recordedInput.tools) ? recordedInput.tools : undefined,
        recorded,
      };
      const result = await guarded(`model executor (determinism probe ${r + 1} of ${runs} at model step ${i})`, () =>
        run.input.executors!.model!(request),
      );
      outputs.push(result.output);
      usage = {
        inputTokens: usage.inputTokens + (result.usage?.inputTokens ?? 0),
        outputTokens: usage.outputTokens + (result.usage?.outputTokens ?? 0),
        costUsd: usage.costUsd + (result.usage?.costUsd ?? 0),
      };
    }
    id = `probe:${i}`;
    run.log.append({
      type: "probe_outputs",
      id,
      at: run.now(),
      modelStep: i,
      model: model ?? recorded.name,
      outputs,
      usage,
    });
  }
  run.probes.push(probeReport(i, step, outputs, recorded.output));
  run.liveCalls.push({
    step,
    kind: "probe",
    name: model ?? recorded.name,
    callId: null,
    fromLog,
    logEntryId: id,
    approval: null,
  });
}

/** How the probe's outputs agree with each other and with the recorded output. */
export function probeReport(
  modelStep: number,
  step: number,
  outputs: readonly unknown[],
  recordedOutput: unknown,
): ProbeReport {
  const counts = new Map<string, number>();
  for (const o of outputs) {
    // Outputs with no canonical form (NaN, cycles) share one bucket; the key is not JSON, so it matches no recorded output.
    const k = canonicalJson(o) ?? "<uncanonicalizable>";
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const recordedKey = canonicalJson(recordedOutput);
  const top = Math.max(0, ...counts.values());
  return {
    modelStep,
    step,
    runs: outputs.length,
    distinctOutputs: counts.size,
    matchesRecorded: recordedKey === undefined ? 0 : (counts.get(recordedKey) ?? 0),
    variance: outputs.length === 0 ? 0 : 1 - top / outputs.length,
  };
}

/** Whether a model step's output is the recorded one. */
export function sameModelOutput(output: Message, recorded: SessionEvent | null): boolean {
  return recorded !== null && (output === recorded.output || deepEqual(output, recorded.output));
}

/** The branch step a model outcome becomes. */
export function modelStepOf(run: ReplayRun, outcome: ModelOutcome, recorded: SessionEvent | null): ReplayStep {
  const seq = run.steps.length;
  const step: ReplayStep = {
    seq,
    kind: "model_call",
    name: outcome.name,
    input: outcome.input,
    output: outcome.output,
    error: null,
    status: "completed",
    startedAt: outcome.startedAt,
    durationMs: outcome.durationMs,
    usage: outcome.usage,
    parentSeq: null,
    cacheKey: null,
    occurrence: null,
    source: outcome.source,
    baseSeq: recorded?.seq ?? null,
    miss: null,
    equalsBase:
      recorded !== null &&
      outcome.input === recorded.input &&
      sameModelOutput(outcome.output, recorded) &&
      outcome.name === recorded.name,
    edits: recorded ? editsAt(run, recorded.seq, MODEL_EDIT_OPS) : [],
  };
  if (outcome.logEntryId) step.logEntryId = outcome.logEntryId;
  // A full replay keeps a recorded input given whole as it is; every other input is built from its list at the end.
  const list = outcome.list;
  if (list === "recorded" && recorded !== null && run.compactInputs) run.stepRecorded.set(seq, recorded);
  else if (
    list !== null &&
    (run.compactInputs || !(recorded !== null && outcome.input === recorded.input && !recorded.inputPrefix))
  ) {
    const resolved = list === "recorded" ? (recorded === null ? null : run.baseListOf(recorded)) : list;
    if (resolved !== null) run.stepLists.set(seq, resolved);
  }
  const drift = run.inputDrift.length > 0 ? run.inputDrift[run.inputDrift.length - 1]! : null;
  if (drift !== null && drift.step === seq) step.inputDrift = drift.reasons;
  return step;
}

const MODEL_EDIT_OPS: ReplayStep["edits"] = ["replace_model_output", "replace_system_prompt"];

/** The edit operations that apply at a base seq, among `ops`. */
export function editsAt(run: ReplayRun, seq: number, ops: ReplayStep["edits"]): ReplayStep["edits"] {
  const all = run.plan.all;
  if (all.length === 0) return NO_EDITS;
  return all.filter((e) => e.seq === seq && ops.includes(e.op)).map((e) => e.op);
}

const stringOr = (v: unknown) => (typeof v === "string" ? v : undefined);
const numberOr = (v: unknown) => (typeof v === "number" ? v : undefined);

/**
 * The model inputs of a finished run's steps in the form the caller asked
 * for. While the run goes on, a step's input holds the recorded input itself
 * (while it stands) or the messages its list adds. "compact": each model step
 * with a `messages` array gets `inputPrefix` naming the previous such step and
 * how many of its full messages come first, and `input.messages` holds the
 * rest (as stored; a step costs what it adds). "full": every input holds its
 * whole list (the recorded input object itself where it stands and was given
 * whole), as replays have always returned them.
 */
export function stepInputsOut(run: ReplayRun): void {
  if (!run.compactInputs) {
    for (const [seq, list] of run.stepLists) {
      const step = run.steps[seq]!;
      step.input = { ...asRecord(step.input), messages: list.toArray() };
    }
    return;
  }
  // The previous step with a list: its seq, its list (built only when needed) and, when that list is its
  // base call's, that call.
  let previous: { seq: number; list: MessageList | null; recorded: SessionEvent | null } | null = null;
  for (const step of run.steps) {
    if (step.kind !== "model_call") continue;
    const recorded = run.stepRecorded.get(step.seq);
    const given = recorded === undefined ? run.stepLists.get(step.seq) : undefined;
    if (recorded === undefined && given === undefined) continue;
    const pointerGiven = recorded?.inputPrefix ?? null;
    if (recorded !== undefined && pointerGiven !== null && previous?.recorded?.seq === pointerGiven.seq) {
      // The recorded input stands and extends the base call the previous step copied: its stored form
      // carries over as it is (the same list the base call's pointer makes), renumbered.
      step.inputPrefix = { seq: previous.seq, count: pointerGiven.count };
      previous = { seq: step.seq, list: null, recorded };
      continue;
    }
    const list = given ?? run.baseListOf(recorded!);
    if (list === null) continue;
    let pointer: InputPrefix | null = null;
    let added: readonly Message[];
    const previousList = previous === null ? null : (previous.list ?? run.baseListOf(previous.recorded!));
    if (list.prefix === null) added = list.added;
    else if (previous !== null && list.prefix === previousList) {
      pointer = { seq: previous.seq, count: list.count };
      added = list.added;
    } else {
      // Built against another list than the previous step's (rare): cut it against that one.
      const full = list.toArray();
      const count = previousList === null ? 0 : sharedPrefixLength(previousList.toArray(), full);
      if (count > 0) pointer = { seq: previous!.seq, count };
      added = count > 0 ? full.slice(count) : full;
    }
    step.inputPrefix = pointer;
    if (givenMessages(step.input) !== added) step.input = { ...asRecord(step.input), messages: added };
    previous = { seq: step.seq, list, recorded: recorded ?? null };
  }
}
