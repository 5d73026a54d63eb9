import type { BaseIndex } from "./base-index";
import type { EditPlan } from "./edits";
import type { Message, SessionEvent } from "./events";
import { deepEqual } from "./json";
import type { LogIndex } from "./log";
import type { Policy } from "./policy";
import type {
  Evidence,
  ForkPoint,
  LiveCallRecord,
  PendingCall,
  ProbeReport,
  ReplayInput,
  ReplayStatus,
  ReplayStep,
  ReplayStop,
} from "./replay-types";
import { CancelledBeforeCall } from "./tool-call";
import { BaseInputLists, type MessageList } from "./message-list";
import { BranchConversation } from "./replay-conversation";
import { signatureOf } from "./replay-evidence";
import type { ToolResolver } from "./resolver";

/** An executor (model, history lookup) threw: the branch stops as failed, keeping what it obtained. */
export class ExecutorFailure extends Error {
  constructor(
    readonly executor: string,
    override readonly cause: unknown,
  ) {
    super(`The ${executor} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "ExecutorFailure";
  }
}

/** Runs an executor; a throw becomes an `ExecutorFailure` naming it (a cancel seen just before the call stays one). */
export async function guarded<T>(executor: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CancelledBeforeCall) throw error;
    throw new ExecutorFailure(executor, error);
  }
}

/** Shared by every step without edits (no new empty array per step); never mutated. */
export const NO_EDITS: ReplayStep["edits"] = Object.freeze([]) as unknown as ReplayStep["edits"];

/** What a replay reads and never changes: the parsed policy, the edit plan, the indexed base and the caller's input. */
export interface ReplaySetup {
  input: ReplayInput;
  policy: Policy;
  plan: EditPlan;
  base: BaseIndex;
  log: LogIndex;
}

/**
 * The state of one replay run: the steps so far, how it stands (status, stop,
 * pending call), budget counters, live-call evidence and the conversation the
 * branch has built. Every part of the agent loop (model step, tool calls,
 * finishing) reads and updates this one object; nothing else is shared.
 */
export class ReplayRun {
  readonly input: ReplayInput;
  readonly policy: Policy;
  readonly plan: EditPlan;
  readonly base: BaseIndex;
  readonly log: LogIndex;
  /** Set once, right after construction (the resolver reads `liveAllowed` from this run). */
  resolver!: ToolResolver;

  readonly steps: ReplayStep[] = [];
  readonly liveCalls: LiveCallRecord[] = [];
  readonly probes: ProbeReport[] = [];
  readonly inputDrift: Evidence["inputDrift"] = [];
  readonly conversation = new BranchConversation();
  /** The message list of each base model call with a `messages` array (see ./message-list.ts). */
  readonly baseLists: BaseInputLists;
  /**
   * The message list of branch model steps' inputs, by step seq: every one
   * for compact steps, else those whose input is not the recorded one given whole.
   */
  readonly stepLists = new Map<number, MessageList>();
  /**
   * Compact steps whose input is the recorded one as it stands, by step seq:
   * their list is their base call's, built only if the stored form cannot be
   * carried over as it is (see stepInputsOut).
   */
  readonly stepRecorded = new Map<number, SessionEvent>();
  /** The caller wants the steps' model inputs in the stored form. */
  readonly compactInputs: boolean;

  status: ReplayStatus = "completed";
  stop: ReplayStop | null = null;
  pending: PendingCall | null = null;
  fork: ForkPoint | null = null;
  /** A live model answered under another model id than the recorded one. */
  drifting = false;

  liveExecutions = 0;
  liveTokens = 0;
  liveCost = 0;
  budgetSteps = 0;
  /** A live model can loop forever; without maxSteps the branch is still bounded. */
  readonly implicitCap: number;
  /**
   * Every step so far is its base event's copy, at that event's own index (what an "exact" replay asks of
   * each step): noted as steps are made, so the finished run need not walk its steps again to say so.
   */
  exactSoFar = true;
  /** The furthest base seq a branch step aligned with (progress reports). */
  furthestBaseSeq = -1;

  /** Tool calls the importer could not link to a model step, by call id; claimed at most once. */
  readonly orphanCallsById = new Map<string, SessionEvent>();
  readonly claimedOrphans = new Set<number>();

  /** Whether the caller can cancel (then tool calls check too, not only model steps). */
  readonly cancellable: boolean;
  /** recorded-only and determinism-probe copy the record's model outputs. */
  readonly copiesRecord: boolean;

  constructor(setup: ReplaySetup) {
    this.input = setup.input;
    this.policy = setup.policy;
    this.plan = setup.plan;
    this.base = setup.base;
    this.log = setup.log;
    this.implicitCap = setup.policy.maxSteps ?? setup.input.base.length * 4 + 1000;
    this.cancellable = setup.input.isCancelled !== undefined;
    this.copiesRecord = setup.policy.model === "recorded-only" || setup.policy.model === "determinism-probe";
    this.baseLists = new BaseInputLists(setup.base.events);
    // A broken pointer is refused before the run starts, not when a step first needs its list.
    if (setup.base.hasInputPrefix) this.baseLists.checkAll();
    this.compactInputs = setup.input.inputs === "compact";
    for (const e of setup.base.unlinkedCalls) {
      const id = asRecord(e.input).callId;
      if (typeof id === "string" && !this.orphanCallsById.has(id)) this.orphanCallsById.set(id, e);
    }
  }

  /** A base model call's message list; null when its input has no `messages` array. */
  baseListOf(event: SessionEvent): MessageList | null {
    return this.baseLists.of(event);
  }

  /** The clock for new log entries; null without one (the engine does no I/O). */
  now(): string | null {
    return this.input.now ? this.input.now() : null;
  }

  /** Whether one more live execution fits `maxLiveCalls`. */
  liveAllowed(): boolean {
    return this.policy.maxLiveCalls === undefined || this.liveExecutions < this.policy.maxLiveCalls;
  }

  /** Fork-live copies the record until it forks: it ends where the record ends while it has not. */
  followsRecord(): boolean {
    return this.copiesRecord || (this.policy.model === "recorded-until-divergence" && this.fork === null);
  }

  /** Which budget is spent, in words; null while the branch may take another step. */
  overBudget(): string | null {
    const policy = this.policy;
    if (policy.maxSteps !== undefined && this.budgetSteps >= policy.maxSteps)
      return `maxSteps (${policy.maxSteps}) reached`;
    if (this.budgetSteps >= this.implicitCap)
      return `no maxSteps given; the engine's safety cap (${this.implicitCap} steps) reached`;
    if (policy.maxTokens !== undefined && this.liveTokens >= policy.maxTokens)
      return `maxTokens (${policy.maxTokens}) reached`;
    if (policy.maxCostUsd !== undefined && this.liveCost >= policy.maxCostUsd)
      return `maxCostUsd (${policy.maxCostUsd}) reached`;
    return null;
  }

  /** Ends the run with a status and a stop at the current step. */
  halt(status: ReplayStatus, code: string, message: string, extra: Partial<ReplayStop> = {}): void {
    this.status = status;
    this.stop = { code, message, step: this.steps.length, miss: null, ...extra };
  }

  /** Progress: how far into the base run the branch has come (base events up to the furthest aligned one). */
  reportProgress(final: boolean): void {
    if (!this.input.onProgress) return;
    const total = this.base.events.length;
    const done = final && this.status === "completed" ? total : baseEventsUpTo(this.base.events, this.furthestBaseSeq);
    this.input.onProgress({ done, total });
  }

  /** True when the caller asked to cancel; then the branch halts as `cancelled`. */
  async cancelRequested(where: string): Promise<boolean> {
    const isCancelled = this.input.isCancelled;
    if (!isCancelled) return false;
    const answer = isCancelled();
    const cancelled = answer instanceof Promise ? await guarded("cancellation check", () => answer) : answer;
    if (cancelled !== true) return false;
    this.haltCancelled(where);
    return true;
  }

  /** Halts as `cancelled` at `where` ("before model step 3"), keeping the steps made so far. */
  haltCancelled(where: string): void {
    const n = this.steps.length;
    const kept =
      n === 0
        ? "no step was made before it"
        : `the ${n === 1 ? "step" : `${n} steps`} before it ${n === 1 ? "is" : "are"} kept`;
    this.halt("cancelled", "cancelled", `The replay was cancelled ${where}; ${kept}.`);
  }

  /**
   * Appends a step. Notes whether the branch's structure left the base's, and
   * under `stop_on_first_divergence` halts at the first step that differs:
   * false means the run has stopped.
   */
  emit(step: ReplayStep): boolean {
    const k = this.steps.length;
    this.steps.push(step);
    if (this.exactSoFar && !(step.equalsBase && step.baseSeq === this.base.events[k]?.seq)) this.exactSoFar = false;
    if (step.baseSeq !== null && step.baseSeq > this.furthestBaseSeq) this.furthestBaseSeq = step.baseSeq;
    if (step.equalsBase) return true;
    const conversation = this.conversation;
    if (!conversation.structureDiverged) {
      const aligned = step.baseSeq === null ? undefined : this.base.bySeq.get(step.baseSeq);
      conversation.structureDiverged = aligned === undefined || signatureOf(aligned) !== signatureOf(step);
    }
    if (this.policy.drift === "stop_on_first_divergence") {
      this.halt(
        "stopped_on_divergence",
        "first_divergence",
        `Step ${step.seq} differs from the base run; the drift policy stops at the first divergence.`,
      );
      return false;
    }
    return true;
  }

  /** A base event copied into the branch as it was recorded. */
  recordedStep(event: SessionEvent): ReplayStep {
    return recordedStep(this.steps.length, event);
  }

  /** Copies recorded events while the run goes on; false when one stopped it. */
  emitRecorded(events: readonly SessionEvent[] | undefined): boolean {
    if (!events) return true;
    for (const event of events) if (!this.emit(this.recordedStep(event))) return false;
    return true;
  }

  /**
   * Ends the branch after its last model step: trailing user messages and the
   * final output, in base order. When the last model output differs from the
   * record, the final output is the branch's own.
   */
  finish(last: { output: Message; source: ReplayStep["source"]; equalsBase: boolean }): void {
    const base = this.base;
    const finals = base.finalOutputs;
    const trailing = base.userMessagesBefore[base.modelSteps.length] ?? [];
    const lastModelSeq = base.modelSteps[base.modelSteps.length - 1]?.seq ?? -1;
    const tail = [...trailing, ...finals].filter((e) => e.seq > lastModelSeq).sort((a, b) => a.seq - b.seq);
    const finalEvents = tail.length > 0 ? tail : finals;
    for (const event of finalEvents) {
      if (event.kind === "user_message" || last.equalsBase) {
        if (!this.emit(this.recordedStep(event))) return;
        continue;
      }
      const output = last.output.content;
      const step: ReplayStep = {
        ...event,
        seq: this.steps.length,
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
        equalsBase: deepEqual(output, event.output),
        edits: [],
      };
      if (!this.emit(step)) return;
    }
  }
}

/** How many base events (sorted by seq) have a seq ≤ `seq`. */
export function baseEventsUpTo(events: readonly SessionEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A recorded event copied into a branch as it was, as the branch's step `seq`. */
export function recordedStep(seq: number, event: SessionEvent): ReplayStep {
  return {
    ...event,
    seq,
    // A base seq means the same step only while the branch has not shifted.
    parentSeq: seq === event.seq ? event.parentSeq : null,
    source: "recorded",
    baseSeq: event.seq,
    miss: null,
    equalsBase: true,
    edits: [],
  };
}
