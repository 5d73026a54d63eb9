import { indexBase, type BaseIndex } from "./base-index";
import { cacheKey } from "./canonical";
import { validateEdits, type Edit, type EditIssue, type EditOp, type EditPlan } from "./edits";
import type { EventError, Message, SessionEvent, Usage } from "./events";
import { deepEqual } from "./json";
import { LogIndex, type ApprovalEntry, type BranchLogEntry, type FixtureEntry } from "./log";
import type { MissExplanation } from "./miss";
import { Policy, policyHash, type KnownTool } from "./policy";
import { toolResolverFor } from "./resolver";
import {
  type HistoryCohort,
  type HistoryLookup,
  type StepSource,
  type ToolExecutor,
  type ToolOutcome,
  type ToolSimulator,
} from "./resolve";
import type { Adapter } from "./validate";
import { canonicalJson } from "./canonical";

// ---------------------------------------------------------------------------
// Inputs

export interface ModelRequest {
  /** 0-based index among the branch's model steps. */
  modelStep: number;
  /** Branch step index this model step occupies. */
  step: number;
  messages: Message[];
  model: string | undefined;
  temperature: number | undefined;
  tools: unknown[] | undefined;
  /** The recorded model call at this model step, when the base has one. */
  recorded: SessionEvent | null;
}

export type ModelExecutor = (
  request: ModelRequest,
) => Promise<{ output: Message; model?: string; usage?: Usage; durationMs?: number }>;

/** Provider-supplied outputs for `provider-fixture`, by model-step index. */
export interface ProviderFixture {
  modelStep: number;
  output: Message;
  model?: string;
}

export interface ReplayInput {
  base: readonly SessionEvent[];
  policy: Policy;
  edits?: readonly Edit[];
  /** The branch's own append-only log: fixtures, live results, approvals. Read first. */
  log?: readonly BranchLogEntry[];
  executors?: { model?: ModelExecutor; tool?: ToolExecutor; simulator?: ToolSimulator };
  /** Candidates for `cohort_version` and `agent` scopes (see `HistoryLookup`); the engine picks among them. */
  historyLookup?: HistoryLookup;
  /** The experiment's cohort, for `cohort_version` history. */
  cohort?: HistoryCohort | null;
  /** Side-effect class per tool; anything not listed is `unknown` (not read-only). */
  tools?: readonly KnownTool[];
  adapter?: Adapter;
  providerFixtures?: readonly ProviderFixture[];
  /** Clock for new log entries; without one their `at` is null (the engine does no I/O). */
  now?: () => string;
  /**
   * Called at step boundaries (before each model step, and once at the end):
   * `done` = base events the branch has covered so far, `total` = base event count.
   */
  onProgress?: (p: { done: number; total: number }) => void;
  /**
   * Checked at step boundaries (before each model step and each tool call).
   * When it answers true the replay ends with status `cancelled`: the steps so
   * far are kept and the branch is `non_comparable`.
   */
  isCancelled?: () => boolean | Promise<boolean>;
}

// ---------------------------------------------------------------------------
// Outputs

export type ReplayStatus =
  | "completed"
  | "paused"
  | "awaiting_approval"
  | "failed"
  | "stopped_on_divergence"
  | "budget_exhausted"
  | "blocked"
  | "cancelled";

export type Comparability = "exact" | "aligned" | "diverged_but_comparable" | "non_comparable";
export type EvidenceStrength = "recorded" | "controlled" | "simulated" | "live" | "drifting";

/** One branch step: a SessionEvent plus where it came from. `seq` is the branch step index. */
export interface ReplayStep extends SessionEvent {
  source: StepSource;
  /** The base event this step aligns with, when any. */
  baseSeq: number | null;
  miss: MissExplanation | null;
  /** Same name, input, output, error and status as the aligned base event. */
  equalsBase: boolean;
  edits: EditOp[];
  fixtureId?: string;
  logEntryId?: string;
  approvalId?: string;
  inputDrift?: string[];
  /** Notes the caller attached (e.g. an executor answer that had NUL characters replaced). */
  notes?: string[];
}

export interface PendingCall {
  waitingFor: "fixture" | "approval";
  tool: string;
  callId: string;
  args: unknown;
  cacheKey: string | null;
  step: number;
  baseSeq: number | null;
  miss: MissExplanation | null;
  /** The closest recorded result, to prefill a fixture form. */
  prefill: { seq: number; output: unknown; error: EventError | null } | null;
  message: string;
}

export interface ReplayStop {
  code: string;
  message: string;
  step: number;
  call?: { tool: string; callId: string; args: unknown; cacheKey: string | null; baseSeq: number | null };
  miss: MissExplanation | null;
}

export interface LiveCallRecord {
  step: number;
  kind: "tool" | "simulator" | "model" | "probe";
  name: string;
  callId: string | null;
  fromLog: boolean;
  logEntryId: string;
  approval: Pick<ApprovalEntry, "id" | "by" | "at" | "decision" | "note"> | null;
}

export interface ProbeReport {
  modelStep: number;
  step: number;
  runs: number;
  distinctOutputs: number;
  matchesRecorded: number;
  /** 1 − (most common output's share): 0 when every run agreed. */
  variance: number;
}

export interface Evidence {
  policy: Policy;
  policyHash: string;
  stepsBySource: Record<StepSource, number>;
  strength: EvidenceStrength;
  fixturesUsed: { step: number; tool: string; fixtureId: string; author: string; note: string; at: string | null }[];
  liveCalls: LiveCallRecord[];
  inputDrift: { step: number; modelStep: number; baseSeq: number | null; reasons: string[] }[];
  probes: ProbeReport[];
  edits: readonly Edit[];
  /** Fork-live: the first model step that ran live (absent in evidence stored before fork-live existed). */
  fork?: ForkPoint | null;
}

/** Where a fork-live branch started running the model live. */
export interface ForkPoint {
  /** Branch step of the first live model step. */
  seq: number;
  modelStep: number;
  /** The base model call it stands in for, when the base has one. */
  baseSeq: number | null;
  /** Why its input differed from the recorded one (the input-drift reasons). */
  reasons: string[];
}

export interface ReplayResult {
  status: ReplayStatus;
  /** Fork-live (`recorded-until-divergence`): the first model step that ran live; null when none did. */
  fork: ForkPoint | null;
  stop: ReplayStop | null;
  steps: ReplayStep[];
  pending: PendingCall | null;
  comparability: Comparability;
  evidence: Evidence;
  /** Entries this run added to the branch log (live and simulated results): persist them. */
  newLogEntries: BranchLogEntry[];
}

export class ReplayInputError extends Error {
  constructor(
    readonly code:
      | "invalid_policy"
      | "invalid_edits"
      | "model_executor_missing"
      | "history_lookup_missing"
      | "provider_fixtures_missing",
    message: string,
    readonly issues: readonly (EditIssue | { path: (string | number)[]; message: string })[] = [],
  ) {
    super(message);
    this.name = "ReplayInputError";
  }
}

/** An executor (model, history lookup) threw: the branch stops as failed, keeping what it obtained. */
class ExecutorFailure extends Error {
  constructor(
    readonly executor: string,
    override readonly cause: unknown,
  ) {
    super(`The ${executor} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "ExecutorFailure";
  }
}

/** Runs an executor; a throw becomes an `ExecutorFailure` naming it. */
async function guarded<T>(executor: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new ExecutorFailure(executor, error);
  }
}

const ALL_SOURCES: StepSource[] = [
  "recorded",
  "static",
  "fixture",
  "provider_fixture",
  "live",
  "llm",
  "error_result",
  "blocked",
  "edit",
];

// ---------------------------------------------------------------------------

/** Checks everything that can be checked before a replay starts; throws `ReplayInputError`. */
export function prepareReplay(input: ReplayInput): { policy: Policy; plan: EditPlan; base: BaseIndex } {
  const parsed = Policy.safeParse(input.policy);
  if (!parsed.success) {
    throw new ReplayInputError(
      "invalid_policy",
      "The policy document is invalid.",
      parsed.error.issues.map((i) => ({
        path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
        message: i.message,
      })),
    );
  }
  const policy = parsed.data;
  const edits = validateEdits(input.base, input.edits ?? []);
  if (!edits.ok) {
    throw new ReplayInputError("invalid_edits", edits.issues.map((i) => i.message).join(" "), edits.issues);
  }
  const live =
    policy.model === "pinned-live" ||
    policy.model === "compatible-live" ||
    policy.model === "determinism-probe" ||
    policy.model === "recorded-until-divergence";
  if (live && !input.executors?.model) {
    throw new ReplayInputError(
      "model_executor_missing",
      `Model policy "${policy.model}" runs a live model, and no model executor was given: live model policies fail fast unless an executor is set up.`,
    );
  }
  if (policy.model === "provider-fixture" && !input.providerFixtures) {
    throw new ReplayInputError(
      "provider_fixtures_missing",
      'Model policy "provider-fixture" needs a provider fixture set.',
    );
  }
  const rules = [policy.tools.default, ...Object.values(policy.tools.overrides ?? {})];
  if (!input.historyLookup && rules.some((r) => r.type === "history" && r.scope !== "baseline")) {
    throw new ReplayInputError(
      "history_lookup_missing",
      "A history rule with cohort_version or agent scope needs a history lookup.",
    );
  }
  return { policy, plan: edits.plan, base: indexBase(input.base) };
}

interface ModelOutcome {
  output: Message;
  source: StepSource;
  name: string;
  input: unknown;
  usage: Usage | null;
  startedAt: string | null;
  durationMs: number | null;
  logEntryId?: string;
}

/**
 * Replays a base run as a branch under a policy (DESIGN §4). Re-walks the
 * agent loop: model step → its tool calls, each resolved by its rule → next
 * model step, until a final output, a stop, a pause or the budget. Pure and
 * deterministic given the same inputs and log; all I/O is in the executors.
 */
export async function replay(input: ReplayInput): Promise<ReplayResult> {
  const { policy, plan, base } = prepareReplay(input);
  const log = new LogIndex(input.log ?? []);
  const now = () => (input.now ? input.now() : null);

  const steps: ReplayStep[] = [];
  const liveCalls: LiveCallRecord[] = [];
  const probes: ProbeReport[] = [];
  const inputDriftReport: Evidence["inputDrift"] = [];
  let liveExecutions = 0;
  let liveTokens = 0;
  let liveCost = 0;
  let drifting = false;
  let fork: ForkPoint | null = null;

  let status: ReplayStatus = "completed";
  let stop: ReplayStop | null = null;
  let pending: PendingCall | null = null;

  // What the branch changed, for input drift and for rebuilding conversations.
  const changedToolResults = new Map<string, Message>(); // callId → tool message
  const changedModelOutputs = new Map<string, Message>(); // first toolCall id → assistant message
  let systemPrompt: { value: unknown } | null = null;
  let structureDiverged = false;
  let prevMessages: Message[] = [];
  let prevOutput: Message | null = null;
  // Messages since the last model step: user messages, and tool steps whose message is built only when needed.
  let toolMessagesSince: (Message | ReplayStep)[] = [];

  const liveAllowed = () => policy.maxLiveCalls === undefined || liveExecutions < policy.maxLiveCalls;
  const historyLookup = input.historyLookup;
  const resolver = toolResolverFor(
    policy,
    base,
    historyLookup ? (query) => guarded("history lookup", () => historyLookup(query)) : null,
    {
      log,
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.adapter ? { adapter: input.adapter } : {}),
      ...(input.cohort ? { cohort: input.cohort } : {}),
      run: {
        ...(input.executors?.tool ? { toolExecutor: input.executors.tool } : {}),
        ...(input.executors?.simulator ? { simulator: input.executors.simulator } : {}),
        liveAllowed,
        now,
      },
    },
  );

  const orphanCallsById = new Map<string, SessionEvent>();
  const claimedOrphans = new Set<number>();
  for (const e of base.events) {
    if (e.kind !== "tool_call" || e.parentSeq !== null) continue;
    const id = asRecord(e.input).callId;
    if (typeof id === "string" && !orphanCallsById.has(id)) orphanCallsById.set(id, e);
  }

  let budgetSteps = 0;
  // A live model can loop forever; without maxSteps the branch is still bounded.
  const implicitCap = policy.maxSteps ?? input.base.length * 4 + 1000;
  const overBudget = (): string | null => {
    if (policy.maxSteps !== undefined && budgetSteps >= policy.maxSteps) return `maxSteps (${policy.maxSteps}) reached`;
    if (budgetSteps >= implicitCap) return `no maxSteps given; the engine's safety cap (${implicitCap} steps) reached`;
    if (policy.maxTokens !== undefined && liveTokens >= policy.maxTokens)
      return `maxTokens (${policy.maxTokens}) reached`;
    if (policy.maxCostUsd !== undefined && liveCost >= policy.maxCostUsd)
      return `maxCostUsd (${policy.maxCostUsd}) reached`;
    return null;
  };
  const halt = (s: ReplayStatus, code: string, message: string, extra: Partial<ReplayStop> = {}) => {
    status = s;
    stop = { code, message, step: steps.length, miss: null, ...extra };
  };
  // Progress: how far into the base run the branch has come (base events up to the furthest aligned one).
  let furthestBaseSeq = -1;
  const reportProgress = (final: boolean) => {
    if (!input.onProgress) return;
    const total = base.events.length;
    const done = final && status === "completed" ? total : baseEventsUpTo(base.events, furthestBaseSeq);
    input.onProgress({ done, total });
  };
  /** True when the caller asked to cancel; then the branch halts as `cancelled`. */
  const cancellable = input.isCancelled !== undefined;
  const cancelRequested = async (where: string): Promise<boolean> => {
    if (!input.isCancelled) return false;
    const answer = input.isCancelled();
    const cancelled = answer instanceof Promise ? await guarded("cancellation check", () => answer) : answer;
    if (cancelled !== true) return false;
    halt("cancelled", "cancelled", `The replay was cancelled ${where}; the ${steps.length} steps before it are kept.`);
    return true;
  };
  const emit = (step: ReplayStep): boolean => {
    steps.push(step);
    if (step.baseSeq !== null && step.baseSeq > furthestBaseSeq) furthestBaseSeq = step.baseSeq;
    if (!step.equalsBase && !structureDiverged) {
      const aligned = step.baseSeq === null ? undefined : base.bySeq.get(step.baseSeq);
      structureDiverged = aligned === undefined || signatureOf(aligned) !== signatureOf(step);
    }
    if (!step.equalsBase && policy.drift === "stop_on_first_divergence") {
      halt(
        "stopped_on_divergence",
        "first_divergence",
        `Step ${step.seq} differs from the base run; the drift policy stops at the first divergence.`,
      );
      return false;
    }
    return true;
  };
  const recordedStep = (event: SessionEvent): ReplayStep => ({
    ...event,
    seq: steps.length,
    // A base seq means the same step only while the branch has not shifted.
    parentSeq: steps.length === event.seq ? event.parentSeq : null,
    source: "recorded",
    baseSeq: event.seq,
    miss: null,
    equalsBase: true,
    edits: [],
  });

  /** The input messages for model step i, rebuilt from what the branch produced. */
  const reconstructInput = (i: number, recorded: SessionEvent | null): { messages: Message[]; drift: string[] } => {
    const recordedMessages = recorded ? messagesOf(recorded.input) : null;
    if (recordedMessages && !structureDiverged) {
      if (changedToolResults.size === 0 && changedModelOutputs.size === 0 && systemPrompt === null) {
        return { messages: recordedMessages, drift: [] };
      }
      const drift = new Set<string>();
      const messages = recordedMessages.map((m) => {
        if (m.role === "system" && systemPrompt !== null && !deepEqual(m.content, systemPrompt.value)) {
          drift.add("system_prompt_edited");
          return { ...m, content: systemPrompt.value };
        }
        if (m.role === "tool" && m.toolCallId !== undefined) {
          const changed = changedToolResults.get(m.toolCallId);
          if (changed) {
            drift.add(`tool_result_changed:${m.toolCallId}`);
            return { ...m, content: changed.content };
          }
        }
        const firstId = m.role === "assistant" ? m.toolCalls?.[0]?.id : undefined;
        if (firstId !== undefined) {
          const changed = changedModelOutputs.get(firstId);
          if (changed) {
            drift.add(`model_output_changed:${firstId}`);
            return changed;
          }
        }
        return m;
      });
      return { messages, drift: [...drift] };
    }
    // Past the record, or after the branch took another path: the conversation so far.
    const messages = [...prevMessages, ...(prevOutput ? [prevOutput] : []), ...toolMessagesSince.map(asMessage)];
    if (systemPrompt !== null) {
      const value = systemPrompt.value;
      for (let k = 0; k < messages.length; k++)
        if (messages[k]!.role === "system") messages[k] = { ...messages[k]!, content: value };
    }
    return { messages, drift: i === 0 && !recorded ? [] : ["conversation_rebuilt"] };
  };

  /** recorded-only: copy the captured output (synchronous: the common path allocates no promise). */
  const recordedModelStep = (i: number, recorded: SessionEvent): ModelOutcome => {
    const editSeq = recorded.seq;
    if (plan.systemPrompt.has(editSeq)) systemPrompt = { value: plan.systemPrompt.get(editSeq) };
    const { messages, drift } = reconstructInput(i, recorded);
    if (drift.length > 0)
      inputDriftReport.push({ step: steps.length, modelStep: i, baseSeq: recorded.seq, reasons: drift });
    const edited = plan.modelOutput.get(editSeq);
    return {
      output: edited ?? (recorded.output as Message),
      source: edited ? "edit" : "recorded",
      name: recorded.name,
      input: drift.length === 0 ? recorded.input : { ...asRecord(recorded.input), messages },
      usage: edited ? null : recorded.usage,
      startedAt: edited ? null : recorded.startedAt,
      durationMs: edited ? null : recorded.durationMs,
    };
  };

  const modelStep = async (i: number, recorded: SessionEvent | null): Promise<ModelOutcome | null> => {
    const editSeq = recorded?.seq;
    if (editSeq !== undefined && plan.systemPrompt.has(editSeq))
      systemPrompt = { value: plan.systemPrompt.get(editSeq) };
    const { messages, drift } = reconstructInput(i, recorded);
    const recordedInput = recorded ? asRecord(recorded.input) : {};
    const inputFor = (extra: Record<string, unknown> = {}) =>
      drift.length === 0 && Object.keys(extra).length === 0 && recorded
        ? recorded.input
        : { ...recordedInput, messages, ...extra };
    if (drift.length > 0)
      inputDriftReport.push({ step: steps.length, modelStep: i, baseSeq: recorded?.seq ?? null, reasons: drift });

    const edited = editSeq !== undefined ? plan.modelOutput.get(editSeq) : undefined;
    const recordedModel = recorded ? (stringOr(recordedInput.model) ?? recorded.name) : undefined;

    switch (policy.model) {
      case "blocked":
        halt("blocked", "model_blocked", `The model policy is "blocked": no model step may run (model step ${i}).`);
        return null;
      case "recorded-only":
      case "determinism-probe": {
        if (!recorded) return null;
        if (policy.model === "determinism-probe") await probe(i, recorded, recordedModel);
        return {
          output: edited ?? (recorded.output as Message),
          source: edited ? "edit" : "recorded",
          name: recorded.name,
          input: inputFor(),
          usage: edited ? null : recorded.usage,
          startedAt: edited ? null : recorded.startedAt,
          durationMs: edited ? null : recorded.durationMs,
        };
      }
      case "provider-fixture": {
        const fixture = input.providerFixtures?.find((f) => f.modelStep === i);
        if (edited)
          return {
            output: edited,
            source: "edit",
            name: recorded?.name ?? "edit",
            input: inputFor(),
            usage: null,
            startedAt: null,
            durationMs: null,
          };
        if (!fixture) {
          halt("failed", "provider_fixture_missing", `No provider fixture for model step ${i}.`);
          return null;
        }
        return {
          output: fixture.output,
          source: "provider_fixture",
          name: fixture.model ?? recorded?.name ?? "provider-fixture",
          input: inputFor(),
          usage: null,
          startedAt: null,
          durationMs: null,
        };
      }
      case "recorded-until-divergence": {
        // Copy while the model sees what it saw in the record; once an input differs, run live from there on.
        const liveFromHere = policy.liveFromModelStep !== undefined && i >= policy.liveFromModelStep;
        if (fork === null && recorded && drift.length === 0 && !liveFromHere) {
          return {
            output: edited ?? (recorded.output as Message),
            source: edited ? "edit" : "recorded",
            name: recorded.name,
            input: inputFor(),
            usage: edited ? null : recorded.usage,
            startedAt: edited ? null : recorded.startedAt,
            durationMs: edited ? null : recorded.durationMs,
          };
        }
        if (fork === null && !edited)
          fork = {
            seq: steps.length,
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
        if (edited)
          return {
            output: edited,
            source: "edit",
            name: recorded?.name ?? model ?? "edit",
            input: inputFor(),
            usage: null,
            startedAt: null,
            durationMs: null,
          };
        const logged = log.liveModelOutput(i);
        let outcome: ModelOutcome;
        if (logged && logged.step === steps.length) {
          outcome = {
            output: logged.output,
            source: "live",
            name: logged.model,
            input: inputFor(extra),
            usage: logged.usage,
            startedAt: null,
            durationMs: logged.durationMs,
            logEntryId: logged.id,
          };
          liveCalls.push({
            step: steps.length,
            kind: "model",
            name: logged.model,
            callId: null,
            fromLog: true,
            logEntryId: logged.id,
            approval: null,
          });
        } else {
          if (!liveAllowed()) {
            halt(
              "budget_exhausted",
              "budget_live_calls",
              `maxLiveCalls (${policy.maxLiveCalls}) reached before model step ${i}.`,
            );
            return null;
          }
          liveExecutions++;
          const request: ModelRequest = {
            modelStep: i,
            step: steps.length,
            messages,
            model,
            temperature,
            tools: Array.isArray(recordedInput.tools) ? recordedInput.tools : undefined,
            recorded,
          };
          const result = await guarded(`model executor (model step ${i}, branch step ${steps.length})`, () =>
            input.executors!.model!(request),
          );
          const id = `model:${i}:${steps.length}`;
          const usedModel = result.model ?? model ?? "unknown";
          log.append({
            type: "live_model_output",
            id,
            at: now(),
            step: steps.length,
            modelStep: i,
            model: usedModel,
            output: result.output,
            usage: result.usage ?? null,
            durationMs: result.durationMs ?? null,
          });
          outcome = {
            output: result.output,
            source: "live",
            name: usedModel,
            input: inputFor(extra),
            usage: result.usage ?? null,
            startedAt: null,
            durationMs: result.durationMs ?? null,
            logEntryId: id,
          };
          liveCalls.push({
            step: steps.length,
            kind: "model",
            name: usedModel,
            callId: null,
            fromLog: false,
            logEntryId: id,
            approval: null,
          });
        }
        liveTokens += (outcome.usage?.inputTokens ?? 0) + (outcome.usage?.outputTokens ?? 0);
        liveCost += outcome.usage?.costUsd ?? 0;
        if (recordedModel !== undefined && outcome.name !== recordedModel) drifting = true;
        return outcome;
      }
    }
  };

  const probe = async (i: number, recorded: SessionEvent, model: string | undefined) => {
    const runs = policy.probeRuns ?? 3;
    const step = steps.length;
    let outputs = log.probeOutputs(i)?.outputs;
    let fromLog = true;
    let id = log.probeOutputs(i)?.id ?? `probe:${i}`;
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
          messages: messagesOf(recorded.input),
          model,
          temperature,
          tools: Array.isArray(recordedInput.tools) ? recordedInput.tools : undefined,
          recorded,
        };
        const result = await guarded(`model executor (determinism probe ${r + 1} of ${runs} at model step ${i})`, () =>
          input.executors!.model!(request),
        );
        outputs.push(result.output);
        usage = {
          inputTokens: usage.inputTokens + (result.usage?.inputTokens ?? 0),
          outputTokens: usage.outputTokens + (result.usage?.outputTokens ?? 0),
          costUsd: usage.costUsd + (result.usage?.costUsd ?? 0),
        };
      }
      id = `probe:${i}`;
      log.append({ type: "probe_outputs", id, at: now(), modelStep: i, model: model ?? recorded.name, outputs, usage });
    }
    const counts = new Map<string, number>();
    for (const o of outputs) {
      // Outputs with no canonical form (NaN, cycles) share one bucket, as before; the key is not JSON, so it matches no recorded output.
      const k = canonicalJson(o) ?? "<uncanonicalizable>";
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const recordedKey = canonicalJson(recorded.output);
    const top = Math.max(0, ...counts.values());
    probes.push({
      modelStep: i,
      step,
      runs: outputs.length,
      distinctOutputs: counts.size,
      matchesRecorded: recordedKey === undefined ? 0 : (counts.get(recordedKey) ?? 0),
      variance: outputs.length === 0 ? 0 : 1 - top / outputs.length,
    });
    liveCalls.push({
      step,
      kind: "probe",
      name: model ?? recorded.name,
      callId: null,
      fromLog,
      logEntryId: id,
      approval: null,
    });
  };

  const finish = (last: { output: Message; source: StepSource; equalsBase: boolean }) => {
    // Trailing user messages and the final output, in base order.
    const finals = base.finalOutputs;
    const trailing = base.userMessagesBefore[base.modelSteps.length] ?? [];
    const lastModelSeq = base.modelSteps[base.modelSteps.length - 1]?.seq ?? -1;
    const tail = [...trailing, ...finals].filter((e) => e.seq > lastModelSeq).sort((a, b) => a.seq - b.seq);
    const finalEvents = tail.length > 0 ? tail : finals;
    for (const event of finalEvents) {
      if (event.kind === "user_message") {
        if (!emit(recordedStep(event))) return;
        continue;
      }
      if (last.equalsBase) {
        if (!emit(recordedStep(event))) return;
      } else {
        const output = last.output.content;
        const equal = deepEqual(output, event.output);
        if (
          !emit({
            ...event,
            seq: steps.length,
            parentSeq: null,
            output,
            error: null,
            status: "completed",
            startedAt: null,
            durationMs: null,
            usage: null,
            source: last.source,
            baseSeq: event.seq,
            miss: null,
            equalsBase: equal,
            edits: [],
          })
        )
          return;
      }
    }
  };

  // The agent loop.
  for (const event of base.userMessagesBefore[0] ?? []) if (!emit(recordedStep(event))) break;
  const copiesRecord = policy.model === "recorded-only" || policy.model === "determinism-probe";
  // Fork-live copies the record until it forks: it ends where the record ends while it has not.
  const followsRecord = () => copiesRecord || (policy.model === "recorded-until-divergence" && fork === null);
  let finished = false;
  if (base.modelSteps.length === 0 && followsRecord() && status === "completed") {
    finish({ output: { role: "assistant", content: null }, source: "recorded", equalsBase: true });
    finished = true;
  }

  try {
    for (let i = 0; status === "completed" && !finished; i++) {
      reportProgress(false);
      if (await cancelRequested(`before model step ${i}`)) break;
      const recorded = base.modelSteps[i] ?? null;
      if (i > 0 && recorded) {
        let ok = true;
        for (const event of base.userMessagesBefore[i] ?? []) {
          if (!emit(recordedStep(event))) {
            ok = false;
            break;
          }
          const content = messageOfUserEvent(event);
          if (content) toolMessagesSince.push(content);
        }
        if (!ok) break;
      }
      const budget = overBudget();
      if (budget) {
        halt("budget_exhausted", "budget", `${budget} before model step ${i}.`);
        break;
      }
      if (!recorded && copiesRecord) {
        halt(
          "failed",
          "no_recorded_model_output",
          `The branch needs model step ${i}, which the base run does not have, and the model policy "${policy.model}" copies recorded outputs only.`,
        );
        break;
      }
      const outcome =
        policy.model === "recorded-only" && recorded ? recordedModelStep(i, recorded) : await modelStep(i, recorded);
      if (!outcome) break;
      budgetSteps++;
      const modelSeq = steps.length;
      const modelEquals =
        recorded !== null &&
        outcome.input === recorded.input &&
        (outcome.output === recorded.output || deepEqual(outcome.output, recorded.output)) &&
        outcome.name === recorded.name;
      const modelStepRecord: ReplayStep = {
        seq: modelSeq,
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
        equalsBase: modelEquals,
        edits: recorded ? editsAt(plan, recorded.seq, ["replace_model_output", "replace_system_prompt"]) : [],
        ...(outcome.logEntryId ? { logEntryId: outcome.logEntryId } : {}),
        ...(inputDriftReport.at(-1)?.step === modelSeq ? { inputDrift: inputDriftReport.at(-1)!.reasons } : {}),
      };
      const inputMessages = messagesOf(outcome.input);
      if (recorded === null || !(outcome.output === recorded.output || deepEqual(outcome.output, recorded.output))) {
        const firstId = outcome.output.toolCalls?.[0]?.id;
        if (firstId !== undefined) changedModelOutputs.set(firstId, outcome.output);
        // A reply without tool calls has no id to substitute it by: later inputs are rebuilt from the branch.
        else structureDiverged = true;
      }
      if (!emit(modelStepRecord)) break;
      prevMessages = inputMessages;
      prevOutput = outcome.output;
      toolMessagesSince = [];

      const requested = outcome.output.toolCalls ?? [];
      // A reply without tool calls ends the run, unless the record goes on: a
      // user's next turn (multi-turn sessions), or a base run that continued here too.
      const recordContinues =
        i + 1 < base.modelSteps.length &&
        ((base.userMessagesBefore[i + 1]?.length ?? 0) > 0 ||
          (recorded !== null && ((recorded.output as Message | null)?.toolCalls ?? []).length === 0));
      if (requested.length === 0 && recordContinues) continue;
      if (requested.length === 0) {
        const outputEquals =
          recorded !== null && (outcome.output === recorded.output || deepEqual(outcome.output, recorded.output));
        finish({ output: outcome.output, source: outcome.source, equalsBase: outputEquals });
        finished = true;
        break;
      }

      // This model step's recorded calls: used only to pair each requested call with its recording (by call id).
      const baseCalls = recorded ? (base.toolCallsByParent.get(recorded.seq) ?? []) : [];
      const baseFor = (id: string): SessionEvent | null => {
        for (const e of baseCalls) if (asRecord(e.input).callId === id) return e;
        // Importers that could not link a call to its model step leave parentSeq null: match by call id.
        const unlinked = orphanCallsById.get(id);
        return unlinked && !claimedOrphans.has(unlinked.seq) ? (claimedOrphans.add(unlinked.seq), unlinked) : null;
      };
      const ordered = requested.map((request, position) => ({ request, baseEvent: baseFor(request.id), position }));
      // Calls run in the order the model requested them: a call the branch cannot answer (a miss that
      // fails or pauses) must stop it before a later-requested call runs live. Only when every call
      // pairs with a recording do they keep the record's order (parallel calls recorded as they ran),
      // so an unchanged branch reproduces its base run exactly.
      if (ordered.length > 1 && ordered.every((o) => o.baseEvent !== null)) {
        ordered.sort((a, b) => a.baseEvent!.seq - b.baseEvent!.seq || a.position - b.position);
      }
      // A recorded call of this step that the branch did not make is a divergence too.
      if (baseCalls.some((e) => !ordered.some((o) => o.baseEvent === e))) structureDiverged = true;

      let stopped = false;
      for (const { request, baseEvent } of ordered) {
        if (cancellable && (await cancelRequested(`before the "${request.name}" call`))) {
          stopped = true;
          break;
        }
        const budgetNow = overBudget();
        if (budgetNow) {
          halt("budget_exhausted", "budget", `${budgetNow} before the "${request.name}" call.`);
          stopped = true;
          break;
        }
        const editedArgs = baseEvent && plan.toolArgs.has(baseEvent.seq);
        const args = editedArgs ? plan.toolArgs.get(baseEvent.seq) : request.args;
        const key = cacheKey(request.name, args);
        const call = { tool: request.name, callId: request.id, args, cacheKey: key, step: steps.length };
        const rule = resolver.ruleFor(request.name).rule;
        const edits = baseEvent ? editsAt(plan, baseEvent.seq, ["replace_tool_args", "replace_tool_result"]) : [];

        let outcome: ToolOutcome;
        if (baseEvent && plan.toolResult.has(baseEvent.seq)) {
          // The analyst's result stands in; identical later calls still get their own recordings.
          if (key !== null && rule.type === "history" && rule.scope === "baseline") {
            const state = resolver.occurrence(key);
            if ((state.recordings?.length ?? 0) > state.used) state.used++;
          }
          outcome = {
            type: "answer",
            source: "edit",
            output: plan.toolResult.get(baseEvent.seq),
            error: null,
            miss: null,
          };
        } else {
          const resolved = resolver.resolve(call);
          outcome = resolved instanceof Promise ? await resolved : resolved;
        }

        const sameCall =
          baseEvent !== null && key !== null && key === baseEvent.cacheKey && baseEvent.name === request.name;
        const stopCall = (): NonNullable<ReplayStop["call"]> => ({
          tool: call.tool,
          callId: call.callId,
          args: call.args,
          cacheKey: key,
          baseSeq: baseEvent?.seq ?? null,
        });
        if (outcome.type === "stop") {
          halt(outcome.code === "budget_live_calls" ? "budget_exhausted" : "failed", outcome.code, outcome.message, {
            call: stopCall(),
            miss: outcome.miss,
          });
          stopped = true;
          break;
        }
        if (outcome.type === "pause" || outcome.type === "awaiting_approval") {
          const miss = outcome.miss;
          const closest = miss?.closest[0];
          status = outcome.type === "pause" ? "paused" : "awaiting_approval";
          pending = {
            waitingFor: outcome.type === "pause" ? "fixture" : "approval",
            ...stopCall(),
            step: steps.length,
            miss,
            prefill: closest ? { seq: closest.seq, output: closest.output, error: closest.error } : null,
            message: outcome.type === "pause" ? `Waiting for a fixture: ${miss?.message ?? ""}` : outcome.message,
          };
          stop = { code: status, message: pending.message, step: steps.length, call: stopCall(), miss };
          stopped = true;
          break;
        }
        if (outcome.type === "needs_live") throw new Error("unreachable: replay always runs with executors wired");

        budgetSteps++;
        const failed = outcome.error !== null;
        let occurrence: number | null = null;
        if (key !== null) occurrence = resolver.occurrence(key).branch++;
        const fromRecording = outcome.recorded;
        const input =
          sameCall && baseEvent && request.id === asRecord(baseEvent.input).callId
            ? baseEvent.input
            : { callId: request.id, args };
        const equalsBase =
          baseEvent !== null &&
          input === baseEvent.input &&
          baseEvent.status === (failed ? "failed" : "completed") &&
          (outcome.output === baseEvent.output || deepEqual(outcome.output, baseEvent.output)) &&
          (outcome.error === baseEvent.error || deepEqual(outcome.error, baseEvent.error));
        const step: ReplayStep = {
          seq: steps.length,
          kind: "tool_call",
          name: request.name,
          input,
          output: outcome.output,
          error: outcome.error,
          status: failed ? "failed" : "completed",
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
          edits,
        };
        if (outcome.fixture) step.fixtureId = outcome.fixture.id;
        if (outcome.live) step.logEntryId = outcome.live.logEntryId;
        if (outcome.approval) step.approvalId = outcome.approval.id;
        if (outcome.live) {
          if (!outcome.live.fromLog && outcome.source === "live") liveExecutions++;
          liveCalls.push({
            step: step.seq,
            kind: outcome.source === "llm" ? "simulator" : "tool",
            name: request.name,
            callId: request.id,
            fromLog: outcome.live.fromLog,
            logEntryId: outcome.live.logEntryId,
            approval: outcome.approval ? pickApproval(outcome.approval) : null,
          });
        }
        toolMessagesSince.push(step);
        if (!equalsBase) changedToolResults.set(request.id, toolMessageOf(step));
        if (!emit(step)) {
          stopped = true;
          break;
        }
      }
      if (stopped) break;
      if (!structureDiverged && ordered.some((o) => !o.baseEvent)) structureDiverged = true;
      if (
        structureDiverged &&
        policy.drift === "stop_on_first_divergence" &&
        (status as ReplayStatus) === "completed"
      ) {
        halt(
          "stopped_on_divergence",
          "first_divergence",
          `The branch's tool calls after model step ${i} differ from the base run's.`,
        );
        break;
      }
      if (i + 1 >= base.modelSteps.length && followsRecord() && !structureDiverged) {
        // The record ends here with tool results and no further model step; so does the branch.
        for (const event of base.userMessagesBefore[i + 1] ?? []) if (!emit(recordedStep(event))) break;
        for (const event of base.finalOutputs)
          if ((status as ReplayStatus) === "completed" && !emit(recordedStep(event))) break;
        break;
      }
    }
  } catch (error) {
    // An executor that throws (a model endpoint that timed out, a history lookup that failed) stops
    // the branch as failed; what it obtained so far (live results, approvals) is still returned in
    // newLogEntries, so a retry reads it from the log instead of repeating a live call.
    pending = null;
    if (error instanceof ExecutorFailure) {
      halt(
        "failed",
        "executor_error",
        `${error.message} The branch stopped at step ${steps.length}; results obtained before it are kept in the branch log.`,
      );
    } else {
      halt(
        "failed",
        "engine_error",
        `The replay engine stopped at step ${steps.length}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  reportProgress(true);

  const fixturesUsed: Evidence["fixturesUsed"] = [];
  const fixtureById = new Map<string, FixtureEntry>();
  for (const e of [...(input.log ?? [])]) if (e.type === "fixture") fixtureById.set(e.id, e);
  const stepsBySource = Object.fromEntries(ALL_SOURCES.map((s) => [s, 0])) as Record<StepSource, number>;
  for (const step of steps) {
    if (step.kind === "model_call" || step.kind === "tool_call") stepsBySource[step.source]++;
    if (step.fixtureId) {
      const f = fixtureById.get(step.fixtureId);
      if (f)
        fixturesUsed.push({
          step: step.seq,
          tool: step.name,
          fixtureId: f.id,
          author: f.author,
          note: f.note,
          at: f.at,
        });
    }
  }
  const strength: EvidenceStrength = drifting
    ? "drifting"
    : stepsBySource.live > 0 || probes.length > 0
      ? "live"
      : stepsBySource.llm > 0 || stepsBySource.provider_fixture > 0
        ? "simulated"
        : stepsBySource.static > 0 || stepsBySource.fixture > 0
          ? "controlled"
          : "recorded";

  return {
    status,
    fork,
    stop,
    steps,
    pending,
    comparability: comparabilityOf(status, steps, base.events),
    evidence: {
      policy,
      policyHash: policyHash(policy),
      stepsBySource,
      strength,
      fixturesUsed,
      liveCalls,
      inputDrift: inputDriftReport,
      probes,
      edits: plan.all,
      fork,
    },
    newLogEntries: log.appended,
  };
}

/**
 * Event signature for alignment (DESIGN §5: kind, name, cache key). A model
 * call is identified by its kind alone: under `compatible-live` the model id
 * is what changed, and the steps still correspond.
 */
export function signatureOf(event: Pick<SessionEvent, "kind" | "name" | "cacheKey">): string {
  if (event.kind === "model_call") return "model_call";
  return `${event.kind}\u0000${event.name}\u0000${event.cacheKey ?? ""}`;
}

/** DESIGN §4 comparability of a finished replay. */
export function comparabilityOf(
  status: ReplayStatus,
  steps: readonly ReplayStep[],
  base: readonly SessionEvent[],
): Comparability {
  const sameLength = steps.length === base.length;
  if (status === "completed" && sameLength && steps.every((s, k) => s.equalsBase && s.baseSeq === base[k]!.seq))
    return "exact";
  if (status !== "completed") return "non_comparable";
  if (sameLength && steps.every((s, k) => signatureOf(s) === signatureOf(base[k]!))) return "aligned";
  return "diverged_but_comparable";
}

/** How many base events (sorted by seq) have a seq ≤ `seq`. */
function baseEventsUpTo(events: readonly SessionEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The tool message a tool step puts in the conversation. */
function toolMessageOf(step: ReplayStep): Message {
  return {
    role: "tool",
    toolCallId: (step.input as { callId: string }).callId,
    name: step.name,
    content: step.error !== null ? { error: step.error } : step.output,
  };
}

function asMessage(entry: Message | ReplayStep): Message {
  return "role" in entry ? entry : toolMessageOf(entry);
}

/** Shared by every step without edits (no new empty array per step); never mutated. */
const NO_EDITS: EditOp[] = Object.freeze([]) as unknown as EditOp[];

function editsAt(plan: EditPlan, seq: number, ops: EditOp[]): EditOp[] {
  if (plan.all.length === 0) return NO_EDITS;
  return plan.all.filter((e) => e.seq === seq && ops.includes(e.op)).map((e) => e.op);
}

function pickApproval(a: ApprovalEntry): LiveCallRecord["approval"] {
  return { id: a.id, by: a.by, at: a.at, decision: a.decision, ...(a.note !== undefined ? { note: a.note } : {}) };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function messagesOf(input: unknown): Message[] {
  const messages = asRecord(input).messages;
  return Array.isArray(messages) ? (messages as Message[]) : [];
}

function messageOfUserEvent(event: SessionEvent): Message | null {
  const source = asRecord(event.output).role ? event.output : event.input;
  const record = asRecord(source);
  if (record.role === "user") return record as unknown as Message;
  return { role: "user", content: source };
}

const stringOr = (v: unknown) => (typeof v === "string" ? v : undefined);
const numberOr = (v: unknown) => (typeof v === "number" ? v : undefined);
