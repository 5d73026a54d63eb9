import type { SessionEvent } from "./events";
import { deepEqual, isPlainObject } from "./json";
import type { FixtureEntry } from "./log";
import { explainFixtureMiss, explainHistoryMiss, explainStaticMiss, type MissExplanation } from "./miss";
import { pickHistoryMatch } from "./history-match";
import {
  effectiveOnMiss,
  isCatchAllCase,
  type HistoryRule,
  type OnMiss,
  type StaticCase,
  type ToolRule,
} from "./policy";
import { runLive, runSimulator } from "./resolve-live";
import type { MaybePromise, ResolveEnv, RuleResult, ToolOutcome } from "./resolve-types";
import type { ToolCall } from "./tool-call";

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
