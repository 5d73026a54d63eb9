import { indexBase, type BaseIndex } from "./base-index";
import { cacheKey as cacheKeyOf } from "./canonical";
import type { SessionEvent } from "./events";
import type { JsonPath } from "./json";
import { LogIndex, type BranchLogEntry } from "./log";
import { Policy, ruleFor, type KnownTool, type SideEffect, type ToolRule } from "./policy";
import type { HistoryCohort, HistoryLookup } from "./history-match";
import { KeyStates, type KeyState } from "./key-states";
import { resolveToolCall } from "./resolve";
import type { ResolveEnv, ToolOutcome } from "./resolve-types";
import type { ToolCall } from "./tool-call";
import type { Adapter } from "./validate";

/** A call to resolve: the tool and its arguments; the rest is derived when absent. */
export interface ResolverCall {
  tool: string;
  args: unknown;
  callId?: string;
  /** The call's cache key when already known (derived from tool and args otherwise). */
  cacheKey?: string | null;
  /** Branch step index the call would occupy (0 when only explaining). */
  step?: number;
}

export interface ToolResolverOptions {
  /** The branch log (fixtures, live results, approvals), read before anything runs. */
  log?: readonly BranchLogEntry[] | LogIndex;
  /** Side-effect class per tool; anything not listed is `unknown` (not read-only). */
  tools?: readonly KnownTool[];
  adapter?: Adapter;
  /** The experiment's cohort, for `cohort_version` history. */
  cohort?: HistoryCohort | null;
  /** Live execution (a replay); without it live rules answer `needs_live` and nothing runs. */
  run?: ResolveEnv["run"];
}

export interface ToolResolver {
  readonly policy: Policy;
  readonly base: BaseIndex;
  /** The rule that answers calls to `tool`, with its path in the policy document. */
  ruleFor(tool: string): { rule: ToolRule; path: JsonPath };
  /**
   * Resolves the next call of the sequence under its rule: baseline history
   * hands out the recorded occurrences of identical calls in order, so calling
   * `resolve` twice with the same call gives the first, then the second recording.
   * Synchronous unless something external is asked (a lookup, a live run).
   */
  resolve(call: ResolverCall): ToolOutcome | Promise<ToolOutcome>;
  /**
   * `resolve` for a call whose id, cache key and step are all known (the
   * replay's calls): nothing is derived or copied. `recording` is the base
   * call it pairs with, if any (a lookup hint only; the answer is the same).
   */
  resolveCall(call: ToolCall, recording?: SessionEvent | null): ToolOutcome | Promise<ToolOutcome>;
  /** Occurrence state of a cache key (baseline recordings used, branch calls made); `recording` as in `resolveCall`. */
  occurrence(key: string, recording?: SessionEvent | null): KeyState;
}

/**
 * One resolver for every caller (replay, "try a rule", miss explanations):
 * resolves a sequence of tool calls under a policy against a recorded session,
 * with the occurrence state inside. `lookup` only returns candidates for the
 * wider history scopes; what counts (completed, not a replay, in the cohort,
 * newest) is decided here. Session-free: nothing about storage leaks in.
 */
export function createToolResolver(
  policy: Policy,
  recorded: readonly SessionEvent[] | BaseIndex,
  lookup?: HistoryLookup | null,
  options: ToolResolverOptions = {},
): ToolResolver {
  return toolResolverFor(Policy.parse(policy), isBaseIndex(recorded) ? recorded : indexBase(recorded), lookup, options);
}

/** `createToolResolver` for a policy that was already parsed (the replay parses it once up front). */
export function toolResolverFor(
  policy: Policy,
  base: BaseIndex,
  lookup: HistoryLookup | null | undefined,
  options: ToolResolverOptions,
): ToolResolver {
  const sideEffects = new Map<string, SideEffect>((options.tools ?? []).map((t) => [t.name, t.sideEffect]));
  const keys = new KeyStates(base);
  const env: ResolveEnv = {
    base,
    keys,
    log: options.log instanceof LogIndex ? options.log : new LogIndex(options.log ?? []),
    sideEffectOf: (tool) => sideEffects.get(tool) ?? "unknown",
    ...(options.adapter ? { adapter: options.adapter } : {}),
    ...(lookup ? { historyLookup: lookup } : {}),
    ...(options.cohort ? { cohort: options.cohort } : {}),
    ...(options.run ? { run: options.run } : {}),
  };
  const rules = new Map<string, { rule: ToolRule; path: JsonPath }>();
  const ruleOf = (tool: string) => {
    let found = rules.get(tool);
    if (found === undefined) rules.set(tool, (found = ruleFor(policy.tools, tool)));
    return found;
  };
  return {
    policy,
    base,
    ruleFor: ruleOf,
    resolve(input) {
      const key = input.cacheKey !== undefined ? input.cacheKey : cacheKeyOf(input.tool, input.args);
      const call: ToolCall = {
        tool: input.tool,
        callId: input.callId ?? "try",
        args: input.args,
        cacheKey: key,
        step: input.step ?? 0,
      };
      return resolveToolCall(ruleOf(input.tool).rule, call, env);
    },
    resolveCall: (call, recording) => resolveToolCall(ruleOf(call.tool).rule, call, env, recording ?? null),
    occurrence: (key, recording) => keys.of(key, recording),
  };
}

function isBaseIndex(value: readonly SessionEvent[] | BaseIndex): value is BaseIndex {
  return !Array.isArray(value);
}
