/**
 * The state of an agent-driven branch between its agent's requests: the base (indexed, with its model
 * calls' full inputs), the engine's one tool resolver (occurrence counts, the branch log), the steps so far
 * and where the agent is in the recording. Kept per process, per replay, so a call costs the same at step
 * 1,000 as at step 1; rebuilt from the stored branch (base, branch log, the branch's earlier calls in order)
 * when absent or when another process moved the branch, so a restart or a second server answers the same.
 * Every request of one replay runs under that replay's lock, in arrival order.
 */
import {
  Adapter,
  LogIndex,
  Policy,
  RunInterrupted,
  indexBase,
  toolResolverFor,
  type BaseIndex,
  type BranchLogEntry,
  type PendingCall,
  type ReplayStep,
  type SessionEvent,
  type ToolCall,
  type ToolExecutor,
  type ToolResolver,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import {
  AGENT_OPEN_STATUSES,
  AgentStepsMoved,
  agentReplayRow,
  agentReplaySteps,
  appendAgentSteps,
  stopAgentReplay,
  type AgentDriver,
  type AgentReplayRow,
  type AgentStop,
} from "@/lib/db/agent-replays";
import { historyLookupFor, knownTools } from "@/lib/db/history";
import { withTransaction } from "@/lib/db/transactions";
import { appendLogEntries, loadBranchLog } from "@/lib/db/replay-writes";
import { sessionEventsForRun } from "@/lib/db/replay-save";
import { AppError, notFound } from "@/lib/errors";
import { toolSimulator } from "@/lib/executors/live";
import { expandInputs, inputCompactor, type CompactInput, type Step } from "@/lib/sessions/inputs";

/** Thrown by the agent's "tool executor": a passthrough call the agent runs itself (the contract's `execute`). */
export class AgentExecutes extends RunInterrupted {
  constructor(readonly call: ToolCall) {
    super(`The agent runs "${call.tool}" itself.`);
    this.name = "AgentExecutes";
  }
}

/** A passthrough call handed to the agent, whose result it has not posted yet. */
export type AwaitedCall = { waitingFor: "agent_result" } & Pick<
  PendingCall,
  "tool" | "callId" | "args" | "cacheKey" | "step" | "baseSeq"
>;

export interface AgentRun {
  replayId: string;
  row: AgentReplayRow;
  policy: Policy;
  driver: AgentDriver;
  base: BaseIndex;
  /** Full recorded model inputs by base seq (the stored form expanded once). */
  recordedInputs: ReadonlyMap<number, unknown>;
  resolver: ToolResolver;
  log: LogIndex;
  /** Ids of the log entries the database holds (appended ones not among them are stored after a call). */
  storedLog: Set<string>;
  steps: ReplayStep[];
  /** Model calls the branch made. */
  modelCalls: number;
  /** The last model step of the branch and the recorded model call it paired with. */
  lastModel: { seq: number; recorded: SessionEvent | null } | null;
  /** The recording's model calls by thread (see threadKeyOf), in order, and each one's thread. */
  threads: ThreadIndex;
  /** Recorded model calls already paired with a branch call (by base seq), and the branch step each became. */
  pairedModels: Map<number, number>;
  /** Paired recorded model calls some of whose recorded tool calls are not paired yet, newest last. */
  openModels: SessionEvent[];
  /** Recorded tool calls already paired with a branch call (by base seq). */
  pairedCalls: Set<number>;
  /** Live model steps began at this model step (a live model policy after the first difference); null before. */
  forkedAt: number | null;
  awaiting: Map<string, AwaitedCall>;
  /** The branch answered `wait` (a fixture, an approval): the next request reads what the dashboard added. */
  waiting: boolean;
  /**
   * The stored form of the next steps' model inputs: what each adds to the branch's last model call. A client
   * sends the whole conversation with every call; stored whole, a 1,000-step run would write O(steps²) bytes.
   */
  compactor: (step: Step) => CompactInput;
}

/**
 * The thread of a model call: the instructions it runs under (its leading system messages: Chat Completions'
 * system turns, Responses' `instructions`, Anthropic's `system`) and the first message after them (the task
 * that thread was given). Two agents of one run, or two instances of one agent given different tasks, are
 * different threads; calls of one thread keep their order. The calling agent's name is not on the wire, so it
 * is not part of the key: its instructions stand for it.
 */
export function threadKeyOf(input: unknown): string {
  const messages = (input as { messages?: unknown } | null)?.messages;
  const list = Array.isArray(messages) ? (messages as { role?: unknown; content?: unknown }[]) : [];
  let k = 0;
  const system: unknown[] = [];
  for (; k < list.length && list[k]?.role === "system"; k++) system.push(list[k]!.content ?? null);
  const opening = list[k] ? [list[k]!.role ?? null, list[k]!.content ?? null] : null;
  return JSON.stringify([system, opening]);
}

/** The recording's model calls grouped by thread, with cursors past the paired ones. */
export class ThreadIndex {
  private readonly byKey = new Map<string, SessionEvent[]>();
  private readonly cursors = new Map<string, number>();
  private allCursor = 0;

  constructor(
    private readonly modelSteps: readonly SessionEvent[],
    recordedInputs: ReadonlyMap<number, unknown>,
  ) {
    for (const step of modelSteps) {
      const key = threadKeyOf(recordedInputs.get(step.seq));
      const list = this.byKey.get(key);
      if (list) list.push(step);
      else this.byKey.set(key, [step]);
    }
  }

  /**
   * The recorded model call a branch call with this input pairs with: in a one-thread recording, the n-th (as
   * the calls come); else the first unpaired call of the input's own thread (none left: null), or, for an input
   * of no recorded thread (its instructions changed), the first unpaired call of the recording.
   */
  pairFor(input: unknown, n: number, paired: ReadonlyMap<number, number>): SessionEvent | null {
    if (this.byKey.size <= 1) return this.modelSteps[n] ?? null;
    const key = threadKeyOf(input);
    const list = this.byKey.get(key);
    if (!list) {
      while (this.allCursor < this.modelSteps.length && paired.has(this.modelSteps[this.allCursor]!.seq))
        this.allCursor++;
      return this.modelSteps[this.allCursor] ?? null;
    }
    let cursor = this.cursors.get(key) ?? 0;
    while (cursor < list.length && paired.has(list[cursor]!.seq)) cursor++;
    this.cursors.set(key, cursor);
    return list[cursor] ?? null;
  }
}

const runs = new Map<string, AgentRun>();
const locks = new Map<string, Promise<unknown>>();
const MAX_CACHED = 200;

/** Runs `work` after every earlier request of this replay (in this process) is done. */
export function withReplayLock<T>(replayId: string, work: () => Promise<T>): Promise<T> {
  const before = locks.get(replayId) ?? Promise.resolve();
  const next = before.then(work, work);
  const tail = next.catch(() => undefined);
  locks.set(replayId, tail);
  void tail.then(() => {
    if (locks.get(replayId) === tail) locks.delete(replayId);
  });
  return next;
}

/** A replay's cached state in this process, if any (tests check that it is kept from one call to the next). */
export function cachedAgentRun(replayId: string): AgentRun | undefined {
  return runs.get(replayId);
}

/** Drops a replay's cached state (tests use it to take the rebuild path; the finish drops it). */
export function forgetAgentRun(replayId: string): void {
  runs.delete(replayId);
}

const OPEN = new Set<string>(AGENT_OPEN_STATUSES);

/**
 * The replay's state, from this process's cache while it is current (same step count as stored), else
 * rebuilt. Refuses a replay that is not agent-driven or no longer open. While the branch waits (a fixture,
 * an approval), entries the dashboard added to the branch log are read in.
 */
export async function agentRunFor(prisma: Db, replayId: string): Promise<AgentRun> {
  const row = await agentReplayRow(prisma, replayId);
  if (!row) throw notFound("replay", replayId);
  if (row.driver !== "agent")
    throw new AppError("wrong_state", `Replay ${replayId} is run by the server, not by an agent.`);
  if (!OPEN.has(row.status))
    throw new AppError(
      "forbidden",
      `Replay ${replayId} is ${row.status.replaceAll("_", " ")}: it takes no more calls from its agent.`,
    );
  let run = runs.get(replayId);
  if (!run || run.steps.length !== row.stepCount) {
    run = await rebuild(prisma, row);
    if (runs.size >= MAX_CACHED) runs.delete(runs.keys().next().value!);
    runs.set(replayId, run);
  } else if (run.waiting || row.status === "paused" || row.status === "awaiting_approval") {
    await readNewLogEntries(prisma, run);
  }
  run.row = row;
  return run;
}

async function readNewLogEntries(prisma: Db, run: AgentRun): Promise<void> {
  for (const entry of await loadBranchLog(prisma, run.replayId)) {
    if (run.storedLog.has(entry.id)) continue;
    run.storedLog.add(entry.id);
    run.log.append(entry);
  }
}

const agentExecutes: ToolExecutor = (call) => Promise.reject(new AgentExecutes(call));

async function rebuild(prisma: Db, row: AgentReplayRow): Promise<AgentRun> {
  const policy = Policy.parse(row.policySnapshot);
  const events = await sessionEventsForRun(prisma, row.sessionId);
  const full = expandInputs(
    events.map((e) => ({ seq: e.seq, kind: e.kind, input: e.input, prefix: e.inputPrefix ?? null })),
  );
  const recordedInputs = new Map<number, unknown>();
  events.forEach((e, k) => {
    if (e.kind === "model_call") recordedInputs.set(e.seq, full[k]);
  });
  const base = indexBase(events);
  const entries: BranchLogEntry[] = await loadBranchLog(prisma, row.id);
  const log = new LogIndex(entries);
  const adapter = Adapter.safeParse(row.session.agent.adapter);
  const steps = await agentReplaySteps(prisma, row.id);
  const liveSteps = () => steps.filter((s) => s.source === "live" && s.kind === "tool_call").length;
  const resolver = toolResolverFor(
    policy,
    base,
    historyLookupFor(prisma, { agentId: row.session.agentId, cohortAgentVersionId: null }),
    {
      log,
      tools: await knownTools(prisma, row.session.agentId),
      ...(adapter.success ? { adapter: adapter.data } : {}),
      run: {
        toolExecutor: agentExecutes,
        simulator: toolSimulator(prisma),
        liveAllowed: () => policy.maxLiveCalls === undefined || liveSteps() < policy.maxLiveCalls,
        now: () => new Date().toISOString(),
      },
    },
  );
  const driver = (row.agentDriver ?? {
    adapter: null,
    version: null,
    command: null,
    capabilities: [],
  }) as unknown as AgentDriver;
  const run: AgentRun = {
    replayId: row.id,
    row,
    policy,
    driver,
    base,
    recordedInputs,
    resolver,
    log,
    storedLog: new Set(entries.map((e) => e.id)),
    steps: [],
    modelCalls: 0,
    lastModel: null,
    threads: new ThreadIndex(base.modelSteps, recordedInputs),
    pairedModels: new Map(),
    openModels: [],
    pairedCalls: new Set(),
    forkedAt: null,
    awaiting: new Map(),
    waiting: false,
    compactor: inputCompactor(),
  };
  // The branch's earlier calls again, in order: the resolver's occurrence state ends where it was.
  for (const step of steps) {
    run.compactor(step);
    if (step.kind === "model_call") noteModelStep(run, step);
    else if (step.kind === "tool_call") {
      const input = (step.input ?? {}) as { callId?: string; args?: unknown };
      const baseEvent = step.baseSeq !== null ? (base.bySeq.get(step.baseSeq) ?? null) : null;
      const call: ToolCall = {
        tool: step.name,
        callId: input.callId ?? "",
        args: input.args,
        cacheKey: step.cacheKey,
        step: step.seq,
      };
      if (step.source !== "edit") await run.resolver.resolveCall(call, baseEvent);
      noteToolStep(run, step, baseEvent);
    }
    run.steps.push(step);
  }
  const pending = row.pending as AwaitedCall | null;
  if (pending?.waitingFor === "agent_result") run.awaiting.set(pending.callId, pending);
  return run;
}

/** Moves the run past a model step (when building it and when rebuilding). */
export function noteModelStep(run: AgentRun, step: ReplayStep): void {
  const recorded = step.baseSeq !== null ? (run.base.bySeq.get(step.baseSeq) ?? null) : null;
  if (step.source === "live" && run.forkedAt === null) run.forkedAt = run.modelCalls;
  run.modelCalls++;
  run.lastModel = { seq: step.seq, recorded };
  if (recorded) {
    run.pairedModels.set(recorded.seq, step.seq);
    if ((run.base.toolCallsOf(recorded.seq)?.length ?? 0) > 0) run.openModels.push(recorded);
  }
}

/** Moves the run past a tool step: its recording is taken, its occurrence counted. */
export function noteToolStep(run: AgentRun, step: ReplayStep, baseEvent: SessionEvent | null): void {
  if (baseEvent) {
    run.pairedCalls.add(baseEvent.seq);
    // A recorded model call whose every tool call is paired has nothing left to pair with.
    const k = run.openModels.findIndex((m) => m.seq === baseEvent.parentSeq);
    if (k >= 0 && (run.base.toolCallsOf(baseEvent.parentSeq!) ?? []).every((e) => run.pairedCalls.has(e.seq)))
      run.openModels.splice(k, 1);
  }
  if (step.cacheKey !== null) run.resolver.occurrence(step.cacheKey, baseEvent).branch++;
}

/**
 * Stores new steps after the run's own (and log entries the resolver appended meanwhile), then adds them to
 * the run. Another process that stored steps first makes this throw `AgentStepsMoved` with nothing written.
 */
export async function storeSteps(prisma: Db, run: AgentRun, steps: readonly ReplayStep[]): Promise<void> {
  const entries = run.log.appended.filter((e) => !run.storedLog.has(e.id));
  await withTransaction(prisma, async (tx) => {
    if (entries.length > 0) await appendLogEntries(tx, run.replayId, entries, run.row.createdBy);
    await appendAgentSteps(tx, run.replayId, run.steps.length, steps, run.compactor);
  });
  for (const e of entries) run.storedLog.add(e.id);
  run.steps.push(...steps);
  run.row = { ...run.row, stepCount: run.steps.length, status: "running", pending: null };
}

/** Where the branch stopped on a refused tool call (its row holds the stop while the agent ends the run), or null. */
export function branchStop(run: AgentRun): AgentStop | null {
  const error = run.row.error as Partial<AgentStop> | null;
  return error && typeof error.code === "string" && typeof error.message === "string"
    ? { code: error.code, message: error.message, step: typeof error.step === "number" ? error.step : 0 }
    : null;
}

/**
 * The branch stops at a tool call refused with `fail` (seed 000: after a `fail` the replay stops and no later
 * call runs). The stop is stored at once; the replay stays open so its agent can end the run, and the end keeps
 * the stop as the replay's error (a finish with `error`, or, failing that, the idle timeout).
 */
export async function stopBranch(prisma: Db, run: AgentRun, stop: AgentStop): Promise<void> {
  if (branchStop(run)) return;
  await stopAgentReplay(prisma, run.replayId, stop);
  run.row = { ...run.row, status: "running", error: stop as unknown as AgentReplayRow["error"], pending: null };
}

/** The refusal of any call after the stop: the stop's code, and what happened. */
export function stoppedMessage(stop: AgentStop): string {
  return `The branch stopped at step ${stop.step} (${stop.code}): ${stop.message} No later call runs: end the run (POST finish).`;
}

/**
 * Runs one request of the agent under the replay's lock, on its current state; when another process
 * stored steps first, the state is rebuilt and the request runs once more.
 */
export async function underReplay<T>(prisma: Db, replayId: string, work: (run: AgentRun) => Promise<T>): Promise<T> {
  return withReplayLock(replayId, async () => {
    try {
      return await work(await agentRunFor(prisma, replayId));
    } catch (error) {
      // Anything unexpected may have left the state half-moved: the next request rebuilds it.
      if (!(error instanceof AppError)) forgetAgentRun(replayId);
      if (!(error instanceof AgentStepsMoved)) throw error;
      return work(await agentRunFor(prisma, replayId));
    }
  });
}
