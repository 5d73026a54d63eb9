import { indexBase, type BaseIndex } from "./base-index";
import { cacheKey } from "./canonical";
import type { EventError, SessionEvent } from "./events";
import { toolCallArgs } from "./identity";
import type { JsonPath } from "./json";
import type { BranchLogEntry } from "./log";
import { closestRecordedCalls, type MissExplanation } from "./miss";
import type { KnownTool, Policy, ToolRule } from "./policy";
import type { HistoryCohort, HistoryLookup } from "./history-match";
import type { StepSource } from "./resolve-types";
import { createToolResolver } from "./resolver";
import type { Adapter } from "./validate";

/** "Try a rule": which call to try, a recorded one by seq or any call. */
export type TryCall = { seq: number } | { tool: string; args: unknown; occurrence?: number };

export type RuleVerdict =
  | {
      type: "answer";
      source: StepSource;
      output: unknown;
      error: EventError | null;
      recordedSeq: number | null;
      miss: MissExplanation | null;
    }
  | { type: "stop"; code: string; message: string; miss: MissExplanation | null }
  | { type: "pause"; miss: MissExplanation }
  | { type: "awaiting_approval"; message: string; miss: MissExplanation | null }
  | { type: "would_run_live"; kind: "tool" | "simulator"; miss: MissExplanation | null };

export interface RuleExplanation {
  rule: ToolRule;
  rulePath: JsonPath;
  tool: string;
  args: unknown;
  cacheKey: string | null;
  /** The occurrence the call was tried as (baseline history counts per cache key). */
  occurrence: number;
  /**
   * Set when the tried recorded call never finished (status `incomplete`):
   * history skips its recording, as a replay does, and this says what that
   * means for the call. Null otherwise.
   */
  note: string | null;
  verdict: RuleVerdict;
}

export interface ExplainOptions {
  log?: readonly BranchLogEntry[];
  tools?: readonly KnownTool[];
  adapter?: Adapter;
  historyLookup?: HistoryLookup;
  /** The experiment's cohort, for `cohort_version` history. */
  cohort?: HistoryCohort;
  /** Reuse an index when explaining many calls of one session. */
  index?: BaseIndex;
}

/**
 * What the policy's rule for a tool would return for a call, without running
 * anything live: for the policy editor's "try a rule". A recorded call is
 * tried as the occurrence it had in the base run; a miss says why.
 */
export async function explainToolRule(
  policy: Policy,
  call: TryCall,
  base: readonly SessionEvent[],
  options: ExplainOptions = {},
): Promise<RuleExplanation> {
  const index = options.index ?? indexBase(base);
  let tool: string;
  let args: unknown;
  let occurrence: number;
  let callId = "try";
  let incompleteSeq: number | null = null;
  if ("seq" in call) {
    const event = index.bySeq.get(call.seq);
    if (!event || event.kind !== "tool_call")
      throw new RangeError(`seq ${call.seq} is not a tool call of this session.`);
    tool = event.name;
    args = toolCallArgs(event);
    // A recording that never finished has no occurrence of its own: a replay
    // gives the call at its place the next finished identical recording, i.e.
    // the one after those that finished before it.
    occurrence =
      event.occurrence ??
      (event.cacheKey === null
        ? 0
        : (index.finishedByKey.get(event.cacheKey) ?? []).filter((e) => e.seq < event.seq).length);
    if (event.status === "incomplete") incompleteSeq = event.seq;
    const id = (event.input as { callId?: unknown } | null)?.callId;
    if (typeof id === "string") callId = id;
  } else {
    tool = call.tool;
    args = call.args;
    occurrence = call.occurrence ?? 0;
  }
  const key = "seq" in call ? (index.bySeq.get(call.seq)?.cacheKey ?? null) : cacheKey(tool, args);
  // The replay's resolver, positioned at the call's occurrence: the same code answers both.
  const resolver = createToolResolver(policy, index, options.historyLookup, {
    ...(options.log ? { log: options.log } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.adapter ? { adapter: options.adapter } : {}),
    ...(options.cohort ? { cohort: options.cohort } : {}),
  });
  if (key !== null && occurrence > 0) resolver.occurrence(key).used = occurrence;
  const { rule, path } = resolver.ruleFor(tool);
  const outcome = await resolver.resolve({ tool, callId, args, cacheKey: key, step: 0 });
  let verdict: RuleVerdict;
  switch (outcome.type) {
    case "answer":
      verdict = {
        type: "answer",
        source: outcome.source,
        output: outcome.output,
        error: outcome.error,
        recordedSeq: outcome.recorded?.seq ?? null,
        miss: outcome.miss,
      };
      break;
    case "stop":
      verdict = { type: "stop", code: outcome.code, message: outcome.message, miss: outcome.miss };
      break;
    case "pause":
      verdict = { type: "pause", miss: outcome.miss };
      break;
    case "awaiting_approval":
      verdict = { type: "awaiting_approval", message: outcome.message, miss: outcome.miss };
      break;
    case "needs_live":
      verdict = { type: "would_run_live", kind: outcome.kind, miss: outcome.miss };
      break;
  }
  let note: string | null = null;
  if (incompleteSeq !== null) {
    const skipped = `This recorded "${tool}" call (step #${incompleteSeq}) never finished, so history skips its recording, as a replay does.`;
    const baseline = rule.type === "history" && rule.scope === "baseline";
    const later = baseline && key !== null ? index.finishedByKey.get(key)?.[occurrence] : undefined;
    const miss = verdict.miss;
    if (baseline && miss && key !== null && !later) {
      const incompleteMiss: MissExplanation = {
        reason: "recording_incomplete",
        message: `${skipped} No later identical call finished${occurrence > 0 ? ` (the ${occurrence} that finished before it answer the calls before it)` : ""}, so the rule's on_miss (${rule.on_miss}) applies.`,
        tool,
        cacheKey: key,
        scope: "baseline",
        occurrencesRecorded: index.finishedByKey.get(key)?.length ?? 0,
        occurrencesUsed: occurrence,
        closest: closestRecordedCalls(index, tool, args),
      };
      verdict = withMiss(verdict, miss, incompleteMiss);
      note = skipped;
    } else if (later) {
      note = `${skipped} It is tried as occurrence ${occurrence}, which the next finished identical recording (step #${later.seq}) answers.`;
    } else if (rule.type === "history") {
      note = baseline ? skipped : `${skipped} A ${rule.scope} lookup only matches completed calls.`;
    } else {
      note = `${skipped} A ${rule.type} rule does not read recordings, so that does not change its answer.`;
    }
  }
  return { rule, rulePath: path, tool, args, cacheKey: key, occurrence, note, verdict };
}

/** The verdict with `miss` in place of `old`, including where on_miss quoted its message. */
function withMiss(verdict: RuleVerdict, old: MissExplanation, miss: MissExplanation): RuleVerdict {
  const requote = (text: string) =>
    text.endsWith(old.message) ? text.slice(0, text.length - old.message.length) + miss.message : text;
  switch (verdict.type) {
    case "answer":
      return {
        ...verdict,
        miss,
        error: verdict.error ? { ...verdict.error, message: requote(verdict.error.message) } : null,
      };
    case "stop":
    case "awaiting_approval":
      return { ...verdict, miss, message: requote(verdict.message) };
    case "pause":
    case "would_run_live":
      return { ...verdict, miss };
  }
}
