import type { BaseIndex } from "./base-index";
import type { EventError, EventStatus, SessionEvent, Usage } from "./events";
import { deepEqual, isPlainObject } from "./json";
import type { ApprovalEntry, FixtureEntry, LogIndex } from "./log";
import { explainFixtureMiss, explainHistoryMiss, explainStaticMiss, type MissExplanation } from "./miss";
import {
  effectiveOnMiss,
  isCatchAllCase,
  isReadOnly,
  type HistoryRule,
  type LlmRule,
  type OnMiss,
  type PassthroughRule,
  type SideEffect,
  type StaticCase,
  type ToolRule,
} from "./policy";
import type { Adapter } from "./validate";

/** A tool call the branch makes. */
export interface ToolCall {
  tool: string;
  callId: string;
  args: unknown;
  cacheKey: string | null;
  /** Branch step index the call would occupy. */
  step: number;
}

/** What a tool returns: a result, or an error the agent sees. */
export type ToolAnswer = { output: unknown; error?: undefined } | { output?: undefined; error: EventError };

export type ToolExecutor = (call: ToolCall) => Promise<ToolAnswer & { durationMs?: number }>;

/**
 * Thrown by a tool executor that will not make a call because an earlier run
 * of this branch started it and stopped before its answer was kept: making it
 * again could repeat a side effect. The branch pauses for the answer (a
 * fixture for that call), which a person takes from the tool's own records.
 */
export class LiveCallInDoubt extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LiveCallInDoubt";
  }
}

/**
 * Thrown by an executor when the run must end now without a result (its
 * worker no longer holds the replay): the engine passes it on to the caller
 * instead of showing it to the agent as a tool error.
 */
export class RunInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunInterrupted";
  }
}

/**
 * Thrown by an executor that found, just before its call would go out, that
 * the replay was cancelled: the call is not made, and the engine ends the
 * branch `cancelled` with the steps before it kept (as a cancel seen at a step
 * boundary does). `what` names the call, e.g. `the "refund" call`.
 */
export class CancelledBeforeCall extends Error {
  constructor(readonly what: string) {
    super(`The replay was cancelled before ${what} went out.`);
    this.name = "CancelledBeforeCall";
  }
}
export type ToolSimulator = (
  call: ToolCall & { model: string; instructions: string | undefined },
) => Promise<ToolAnswer & { durationMs?: number }>;

/** The completed recording outside the base session that answered a call (cohort_version or agent scope). */
export interface HistoryMatch {
  sessionId: string;
  seq: number;
  output: unknown;
  status: "completed";
}

/** A recorded call with the same tool and cache key, somewhere in the agent's history. */
export interface HistoryCandidate {
  sessionId: string;
  seq: number;
  output: unknown;
  status: EventStatus;
  /** Whether its session is itself a replay (replays never answer history). */
  isReplay: boolean;
  /** The agent version that recorded its session, for cohort membership. */
  agentVersionId: string | null;
  /** When its session was recorded (ISO 8601); the newest answers. */
  recordedAt: string | null;
}

/**
 * Returns the recorded calls with this tool name and cache key that the
 * scope could draw on (`agent`: the agent's sessions; `cohort_version`: the
 * cohort's agent version), in any order. The engine applies the scope's
 * meaning itself (see `pickHistoryMatch`): completed calls only, replay
 * sessions excluded, cohort membership, newest first.
 */
export type HistoryLookup = (query: {
  scope: "cohort_version" | "agent";
  tool: string;
  cacheKey: string;
  args: unknown;
}) => Promise<readonly HistoryCandidate[]>;

/** The experiment's cohort: the agent version it runs over, optionally narrowed to chosen sessions. */
export interface HistoryCohort {
  agentVersionId: string;
  sessionIds?: readonly string[];
}

/**
 * The scope semantics of Kitaru's wider history (so exported policies mean the
 * same there), in one place: among the
 * candidates, only completed calls of sessions that are not replays (and, for
 * `cohort_version`, that belong to the cohort) count, and the newest answers
 * (latest `recordedAt`, then the later call in the session).
 */
export function pickHistoryMatch(
  scope: "cohort_version" | "agent",
  candidates: readonly HistoryCandidate[],
  cohort: HistoryCohort | null,
): HistoryMatch | null {
  if (scope === "cohort_version" && !cohort) return null;
  const members = cohort?.sessionIds ? new Set(cohort.sessionIds) : null;
  let best: HistoryCandidate | null = null;
  for (const c of candidates) {
    if (c.status !== "completed" || c.isReplay) continue;
    if (
      scope === "cohort_version" &&
      (c.agentVersionId !== cohort!.agentVersionId || (members && !members.has(c.sessionId)))
    )
      continue;
    if (best === null || newer(c, best)) best = c;
  }
  return best ? { sessionId: best.sessionId, seq: best.seq, output: best.output, status: "completed" } : null;
}

function newer(a: HistoryCandidate, b: HistoryCandidate): boolean {
  const at = a.recordedAt ?? "";
  const bt = b.recordedAt ?? "";
  if (at !== bt) return at > bt;
  if (a.sessionId !== b.sessionId) return a.sessionId > b.sessionId;
  return a.seq > b.seq;
}

export type StepSource =
  "recorded" | "static" | "fixture" | "provider_fixture" | "live" | "llm" | "error_result" | "blocked" | "edit";

export type ToolOutcome =
  | {
      type: "answer";
      source: StepSource;
      output: unknown;
      error: EventError | null;
      miss: MissExplanation | null;
      /** The recording that answered (history), when from the base. */
      recorded?: SessionEvent;
      externalMatch?: HistoryMatch;
      fixture?: FixtureEntry;
      approval?: ApprovalEntry;
      /** A live or simulated result: whether it came from the log (a resume) or ran now. */
      live?: { fromLog: boolean; logEntryId: string; durationMs: number | null; usage?: Usage | null };
    }
  | { type: "stop"; code: StopCode; message: string; miss: MissExplanation | null }
  | { type: "pause"; miss: MissExplanation }
  | { type: "awaiting_approval"; miss: MissExplanation | null; message: string }
  | { type: "needs_live"; kind: "tool" | "simulator"; miss: MissExplanation | null };

export type StopCode =
  "tool_miss_fail" | "langgraph_null_result" | "tool_executor_missing" | "simulator_missing" | "budget_live_calls";

/** Per cache key: the base's finished recordings, how many baseline history consumed, how many calls the branch made. */
export interface KeyState {
  readonly recordings: readonly SessionEvent[] | undefined;
  used: number;
  branch: number;
}

/** Occurrence state per cache key: one map lookup per call instead of one per counter. */
export class KeyStates {
  /** States of keys the base recorded, by key group (one array slot instead of a map entry per key). */
  private readonly bySlot: (KeyState | undefined)[];
  /** States of keys the base never recorded. */
  private readonly map = new Map<string, KeyState>();
  // Resolving a call and recording its step ask for the same key back to back: remember the last one.
  private lastKey: string | null = null;
  private lastState: KeyState | null = null;
  constructor(private readonly base: BaseIndex) {
    // Filled (not `new Array(n)`): a large holey array would fall back to dictionary elements.
    const bySlot: (KeyState | undefined)[] = [];
    for (let k = 0; k < base.keyGroupCount; k++) bySlot.push(undefined);
    this.bySlot = bySlot;
  }
  /**
   * The state of `key`. `recording`, when given, is a base call believed to
   * have this key: its group is then found without hashing the key into a map
   * (the replay pairs most calls with their recording).
   */
  of(key: string, recording?: SessionEvent | null): KeyState {
    if (key === this.lastKey) return this.lastState!;
    let group = recording ? this.base.keyGroupOf(recording.seq) : undefined;
    if (group === undefined || group.key !== key) group = this.base.keyGroups.get(key);
    let state: KeyState | undefined;
    if (group !== undefined) {
      state = this.bySlot[group.slot];
      if (state === undefined) this.bySlot[group.slot] = state = { recordings: group.recordings, used: 0, branch: 0 };
    } else {
      state = this.map.get(key);
      if (state === undefined) this.map.set(key, (state = { recordings: undefined, used: 0, branch: 0 }));
    }
    this.lastKey = key;
    this.lastState = state;
    return state;
  }
}

export interface ResolveEnv {
  base: BaseIndex;
  /** Occurrence state per cache key (mutated). */
  keys: KeyStates;
  log: LogIndex;
  adapter?: Adapter;
  sideEffectOf: (tool: string) => SideEffect;
  historyLookup?: HistoryLookup;
  /** Who belongs to the cohort, for `cohort_version` history. */
  cohort?: HistoryCohort | null;
  /** Present in a replay; absent when only explaining, which then reports `needs_live`. */
  run?: {
    toolExecutor?: ToolExecutor;
    simulator?: ToolSimulator;
    /** Whether one more live execution fits the budget. */
    liveAllowed: () => boolean;
    now: () => string | null;
  };
}

/** Static matching, as Kitaru matches: first matching case wins; a case without a condition matches anything. */
export function staticCaseMatches(c: StaticCase, args: unknown): boolean {
  if (isCatchAllCase(c)) return true;
  if (c.match_mode === "exact") return deepEqual(args, c.match);
  if (!isPlainObject(c.match) || !isPlainObject(args)) return false;
  for (const key of Object.keys(c.match)) {
    if (!Object.prototype.hasOwnProperty.call(args, key)) return false;
    if (!deepEqual(args[key], c.match[key])) return false;
  }
  return true;
}

type RuleResult =
  | Extract<ToolOutcome, { type: "answer" | "stop" | "needs_live" | "awaiting_approval" | "pause" }>
  | { type: "miss"; miss: MissExplanation };

type MaybePromise<T> = T | Promise<T>;

/**
 * Resolves one tool call by its rule, then by the rule's on_miss. Synchronous
 * whenever nothing external is asked (history/baseline, static, fixture,
 * blocked): replaying a recorded run allocates no promise per call.
 */
export function resolveToolCall(
  rule: ToolRule,
  call: ToolCall,
  env: ResolveEnv,
  recording: SessionEvent | null = null,
): MaybePromise<ToolOutcome> {
  const result = applyRule(rule, call, env, recording);
  if (result instanceof Promise) {
    return result.then((r) =>
      r.type === "miss" ? applyOnMiss(effectiveOnMiss(rule) ?? "fail", call, r.miss, env) : r,
    );
  }
  if (result.type !== "miss") return result;
  return applyOnMiss(effectiveOnMiss(rule) ?? "fail", call, result.miss, env);
}

function applyRule(
  rule: ToolRule,
  call: ToolCall,
  env: ResolveEnv,
  recording: SessionEvent | null,
): MaybePromise<RuleResult> {
  switch (rule.type) {
    case "history":
      return rule.scope === "baseline" ? resolveBaseline(call, env, recording) : resolveWider(rule, call, env);
    case "static": {
      const hit = rule.cases.find((c) => staticCaseMatches(c, call.args));
      if (hit) return { type: "answer", source: "static", output: hit.result, error: null, miss: null };
      return { type: "miss", miss: explainStaticMiss(env.base, call, rule.cases) };
    }
    case "fixture": {
      const fixture = env.log.fixtureFor(call);
      if (fixture) return fixtureAnswer(fixture, null);
      return { type: "miss", miss: explainFixtureMiss(env.base, call) };
    }
    case "passthrough":
      return runLive(call, env, null, rule);
    case "llm":
      return runSimulator(rule, call, env);
    case "blocked":
      return {
        type: "answer",
        source: "blocked",
        output: null,
        error: { type: "ToolBlocked", message: `The policy blocks "${call.tool}": the call was refused.` },
        miss: null,
      };
  }
}

/** Baseline scope: identical calls consume the recorded occurrences in invocation order. */
function resolveBaseline(call: ToolCall, env: ResolveEnv, hint: SessionEvent | null): RuleResult {
  if (call.cacheKey === null) return { type: "miss", miss: explainHistoryMiss(env.base, call, "baseline", 0) };
  const state = env.keys.of(call.cacheKey, hint);
  const recording = state.recordings?.[state.used];
  // A miss does not advance the count; a hit, failed or not, occupies its occurrence.
  if (!recording) return { type: "miss", miss: explainHistoryMiss(env.base, call, "baseline", state.used) };
  state.used++;
  if (recording.status === "failed") {
    return {
      type: "answer",
      source: "recorded",
      output: recording.output,
      error: recording.error ?? { type: "ReplayError", message: "The recorded call failed." },
      miss: null,
      recorded: recording,
    };
  }
  if (recording.output === null && env.adapter === "langgraph") return langgraphNull(call);
  return { type: "answer", source: "recorded", output: recording.output, error: null, miss: null, recorded: recording };
}

/** cohort_version and agent scopes: the newest completed match, through the injected lookup. */
async function resolveWider(rule: HistoryRule, call: ToolCall, env: ResolveEnv): Promise<RuleResult> {
  if (call.cacheKey === null) return { type: "miss", miss: explainHistoryMiss(env.base, call, rule.scope, 0) };
  if (!env.historyLookup) {
    return {
      type: "stop",
      code: "tool_miss_fail",
      message: `History scope "${rule.scope}" needs a history lookup, and none was given.`,
      miss: null,
    };
  }
  const scope = rule.scope === "agent" ? "agent" : "cohort_version";
  const candidates = await env.historyLookup({ scope, tool: call.tool, cacheKey: call.cacheKey, args: call.args });
  const match = pickHistoryMatch(scope, candidates, env.cohort ?? null);
  if (!match) {
    return { type: "miss", miss: explainHistoryMiss(env.base, call, rule.scope, 0) };
  }
  if (match.output === null && env.adapter === "langgraph") return langgraphNull(call);
  return { type: "answer", source: "recorded", output: match.output, error: null, miss: null, externalMatch: match };
}

function langgraphNull(call: ToolCall): RuleResult {
  return {
    type: "stop",
    code: "langgraph_null_result",
    message: `The matched "${call.tool}" recording completed with a null result; LangGraph requires a recorded ToolMessage or Command envelope and fails closed for null or malformed completed results.`,
    miss: null,
  };
}

function fixtureAnswer(fixture: FixtureEntry, miss: MissExplanation | null): RuleResult {
  return {
    type: "answer",
    source: "fixture",
    output: fixture.error ? null : (fixture.output ?? null),
    error: fixture.error ?? null,
    miss,
    fixture,
  };
}

function applyOnMiss(
  onMiss: OnMiss,
  call: ToolCall,
  miss: MissExplanation,
  env: ResolveEnv,
): MaybePromise<ToolOutcome> {
  switch (onMiss) {
    case "fail":
      return {
        type: "stop",
        code: "tool_miss_fail",
        message: `"${call.tool}" missed and its rule says on_miss: fail, so the replay stops without executing the tool. ${miss.message}`,
        miss,
      };
    case "error_result":
      return {
        type: "answer",
        source: "error_result",
        output: null,
        error: { type: "ReplayMiss", message: miss.message },
        miss,
      };
    case "passthrough":
      return runLive(call, env, miss, null);
    case "pause": {
      const fixture = env.log.fixtureFor(call);
      if (fixture) return fixtureAnswer(fixture, miss) as ToolOutcome;
      return { type: "pause", miss };
    }
  }
}

async function runLive(
  call: ToolCall,
  env: ResolveEnv,
  miss: MissExplanation | null,
  rule: PassthroughRule | null,
): Promise<Extract<ToolOutcome, { type: "answer" | "stop" | "needs_live" | "awaiting_approval" | "pause" }>> {
  const logged = env.log.liveToolResult(call);
  const needsApproval = rule?.approval === "per_call" || !isReadOnly(env.sideEffectOf(call.tool));
  let approval: ApprovalEntry | undefined;
  if (needsApproval) {
    approval = env.log.approval(call);
    if (!approval) {
      return {
        type: "awaiting_approval",
        miss,
        message: `"${call.tool}" would run live and ${rule?.approval === "per_call" ? "its rule asks for approval per call" : `is not declared read-only (${env.sideEffectOf(call.tool)})`}: approve or deny this call.`,
      };
    }
    if (approval.decision === "denied") {
      return {
        type: "answer",
        source: "error_result",
        output: null,
        error: { type: "ApprovalDenied", message: `${approval.by} denied running "${call.tool}" live.` },
        miss,
        approval,
      };
    }
  }
  if (logged) {
    return {
      type: "answer",
      source: "live",
      output: logged.output,
      error: logged.error,
      miss,
      ...(approval ? { approval } : {}),
      live: { fromLog: true, logEntryId: logged.id, durationMs: logged.durationMs },
    };
  }
  if (!env.run) return { type: "needs_live", kind: "tool", miss };
  if (!env.run.toolExecutor) {
    return {
      type: "stop",
      code: "tool_executor_missing",
      message: `"${call.tool}" must run live, and no tool executor was given.`,
      miss,
    };
  }
  // A call an earlier run started and never got the answer of is answered by the fixture a person gave for it.
  const given = env.log.fixtureFor(call);
  if (given && given.step === call.step && given.cacheKey === call.cacheKey)
    return {
      type: "answer",
      source: "fixture",
      output: given.error ? null : (given.output ?? null),
      error: given.error ?? null,
      miss,
      fixture: given,
      ...(approval ? { approval } : {}),
    };
  if (!env.run.liveAllowed()) {
    return { type: "stop", code: "budget_live_calls", message: "maxLiveCalls reached before this live call.", miss };
  }
  let answer: ToolAnswer & { durationMs?: number };
  try {
    answer = await execute(() => env.run!.toolExecutor!(call));
  } catch (error) {
    if (!(error instanceof LiveCallInDoubt)) throw error;
    return {
      type: "pause",
      miss: {
        reason: "live_call_in_doubt",
        message: error.message,
        tool: call.tool,
        cacheKey: call.cacheKey,
        closest: [],
      },
    };
  }
  const id = `live:${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`;
  env.log.append({ type: "live_tool_result", ...resultEntryFields(id, env.run.now(), call, answer) });
  return {
    type: "answer",
    source: "live",
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    miss,
    ...(approval ? { approval } : {}),
    live: { fromLog: false, logEntryId: id, durationMs: answer.durationMs ?? null },
  };
}

async function runSimulator(rule: LlmRule, call: ToolCall, env: ResolveEnv): Promise<RuleResult> {
  const logged = env.log.simulatedToolResult(call);
  if (logged) {
    return {
      type: "answer",
      source: "llm",
      output: logged.output,
      error: logged.error,
      miss: null,
      live: { fromLog: true, logEntryId: logged.id, durationMs: logged.durationMs },
    };
  }
  if (!env.run) return { type: "needs_live", kind: "simulator", miss: null };
  if (!env.run.simulator) {
    return {
      type: "stop",
      code: "simulator_missing",
      message: `"${call.tool}" is simulated by ${rule.model}, and no simulator executor was given.`,
      miss: null,
    };
  }
  const answer = await execute(() =>
    env.run!.simulator!({ ...call, model: rule.model, instructions: rule.instructions }),
  );
  const id = `sim:${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`;
  env.log.append({
    type: "simulated_tool_result",
    ...resultEntryFields(id, env.run.now(), call, answer),
    model: rule.model,
  });
  return {
    type: "answer",
    source: "llm",
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    miss: null,
    live: { fromLog: false, logEntryId: id, durationMs: answer.durationMs ?? null },
  };
}

/** Runs an executor; a throw becomes a tool error the agent sees, as a live tool's exception would. */
/** What a live and a simulated tool result record in the branch log alike. */
function resultEntryFields(
  id: string,
  at: string | null,
  call: ToolCall,
  answer: ToolAnswer & { durationMs?: number },
) {
  return {
    id,
    at,
    step: call.step,
    tool: call.tool,
    callId: call.callId,
    cacheKey: call.cacheKey,
    args: call.args,
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    durationMs: answer.durationMs ?? null,
  };
}

async function execute(
  run: () => Promise<ToolAnswer & { durationMs?: number }>,
): Promise<ToolAnswer & { durationMs?: number }> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LiveCallInDoubt || error instanceof RunInterrupted || error instanceof CancelledBeforeCall)
      throw error;
    return {
      error: {
        type: "ToolExecutionError",
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}
