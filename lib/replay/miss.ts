import type { BaseIndex } from "./base-index";
import type { EventError, EventStatus } from "./events";
import { toolCallArgs } from "./identity";
import { differingPaths, formatPath, isPlainObject, type JsonPath } from "./json";
import type { HistoryScope, StaticCase } from "./policy";

/**
 * Why a tool call found no answer. A miss is never silent: an analyst must
 * see at once why `history` found nothing (a changed argument, or the
 * occurrence used up).
 * `closest` ranks the recorded calls of the same tool by how few argument
 * paths differ; `differingPaths` names them.
 */
export type MissReason =
  | "no_cache_key"
  | "occurrences_used_up"
  | "recording_incomplete"
  | "no_recorded_call"
  | "no_completed_match_in_scope"
  | "no_static_case_matched"
  | "no_fixture"
  /** A live call an earlier run started and stopped before its answer was kept: not made again. */
  | "live_call_in_doubt";

export interface ClosestCall {
  seq: number;
  occurrence: number | null;
  status: EventStatus;
  args: unknown;
  differingPaths: JsonPath[];
  output: unknown;
  error: EventError | null;
}

export interface StaticCaseMismatch {
  index: number;
  matchMode: StaticCase["match_mode"];
  /** Paths of `match` that the arguments lack or hold another value at; `[]` with `notAnObject` in subset mode. */
  differingPaths: JsonPath[];
  notAnObject?: boolean;
}

export interface MissExplanation {
  reason: MissReason;
  message: string;
  tool: string;
  cacheKey: string | null;
  scope?: HistoryScope;
  occurrencesRecorded?: number;
  occurrencesUsed?: number;
  closest: ClosestCall[];
  staticCases?: StaticCaseMismatch[];
}

const CLOSEST_LIMIT = 3;

/** The recorded calls of `tool` closest to `args`, ranked by differing paths, then by seq. */
export function closestRecordedCalls(
  base: BaseIndex,
  tool: string,
  args: unknown,
  limit = CLOSEST_LIMIT,
): ClosestCall[] {
  const candidates = base.toolCallsByName.get(tool) ?? [];
  // Calls with one cache key have one set of differing paths: diff each key once.
  const pathsByKey = new Map<string, JsonPath[]>();
  const ranked = candidates.map((event) => {
    const recordedArgs = toolCallArgs(event);
    let paths = event.cacheKey === null ? undefined : pathsByKey.get(event.cacheKey);
    if (!paths) {
      paths = differingPaths(args, recordedArgs);
      if (event.cacheKey !== null) pathsByKey.set(event.cacheKey, paths);
    }
    return { event, recordedArgs, paths };
  });
  ranked.sort(
    (a, b) =>
      a.paths.length - b.paths.length ||
      statusRank(a.event.status) - statusRank(b.event.status) ||
      a.event.seq - b.event.seq,
  );
  return ranked.slice(0, limit).map(({ event, recordedArgs, paths }) => ({
    seq: event.seq,
    occurrence: event.occurrence,
    status: event.status,
    args: recordedArgs,
    differingPaths: paths,
    output: event.output,
    error: event.error,
  }));
}

const statusRank = (s: EventStatus) => (s === "completed" ? 0 : s === "failed" ? 1 : 2);

function describeClosest(tool: string, closest: ClosestCall[]): string {
  const first = closest[0];
  if (!first) return `The base run never called "${tool}".`;
  const paths =
    first.differingPaths.length === 0
      ? "identical arguments"
      : `arguments differ at ${first.differingPaths.slice(0, 5).map(formatPath).join(", ")}`;
  return `Closest recorded "${tool}" call is seq ${first.seq} (${paths}).`;
}

export function explainHistoryMiss(
  base: BaseIndex,
  call: { tool: string; args: unknown; cacheKey: string | null },
  scope: HistoryScope,
  used: number,
): MissExplanation {
  const closest = closestRecordedCalls(base, call.tool, call.args);
  if (call.cacheKey === null) {
    return {
      reason: "no_cache_key",
      message: `The arguments of this "${call.tool}" call cannot be serialized to canonical JSON (null, absent, NaN, Infinity or a cycle), so it has no cache key and history cannot match it.`,
      tool: call.tool,
      cacheKey: null,
      scope,
      closest,
    };
  }
  const recorded = base.finishedByKey.get(call.cacheKey)?.length ?? 0;
  if (scope === "baseline" && recorded > 0) {
    const same = (base.finishedByKey.get(call.cacheKey) ?? []).map((event) => ({
      seq: event.seq,
      occurrence: event.occurrence,
      status: event.status,
      args: toolCallArgs(event),
      differingPaths: [],
      output: event.output,
      error: event.error,
    }));
    return {
      reason: "occurrences_used_up",
      message: `All ${recorded} recorded occurrence(s) of this identical "${call.tool}" call were already used; a replayed call past the last recorded occurrence is a miss.`,
      tool: call.tool,
      cacheKey: call.cacheKey,
      scope,
      occurrencesRecorded: recorded,
      occurrencesUsed: used,
      closest: same.slice(-CLOSEST_LIMIT),
    };
  }
  const incomplete = base.incompleteByKey.get(call.cacheKey) ?? 0;
  // A call recorded nowhere it may be answered from: the reason, then where the closest recorded one differs.
  const unanswered = (
    reason: MissExplanation["reason"],
    message: string,
    occurrences: Pick<MissExplanation, "occurrencesRecorded" | "occurrencesUsed">,
  ): MissExplanation => ({
    reason,
    message: `${message} ${describeClosest(call.tool, closest)}`,
    tool: call.tool,
    cacheKey: call.cacheKey,
    scope,
    ...occurrences,
    closest,
  });
  if (scope === "baseline" && incomplete > 0)
    return unanswered(
      "recording_incomplete",
      `The base run has ${incomplete} identical "${call.tool}" call(s), but none finished, and recordings that never finished are skipped.`,
      { occurrencesRecorded: 0, occurrencesUsed: 0 },
    );
  if (scope !== "baseline")
    return unanswered(
      "no_completed_match_in_scope",
      `No completed "${call.tool}" call with these arguments was found in ${scope} scope (only completed calls answer there, so a failed-only history is a miss).`,
      {},
    );
  return unanswered("no_recorded_call", `No recorded "${call.tool}" call has these arguments.`, {
    occurrencesRecorded: 0,
    occurrencesUsed: 0,
  });
}

export function explainStaticMiss(
  base: BaseIndex,
  call: { tool: string; args: unknown; cacheKey: string | null },
  cases: readonly StaticCase[],
): MissExplanation {
  const staticCases: StaticCaseMismatch[] = cases.map((c, index) => {
    if (c.match_mode === "subset") {
      if (!isPlainObject(c.match)) return { index, matchMode: "subset", differingPaths: [], notAnObject: true };
      const argsObject = isPlainObject(call.args) ? call.args : {};
      const paths: JsonPath[] = [];
      for (const key of Object.keys(c.match)) {
        if (!Object.prototype.hasOwnProperty.call(argsObject, key)) paths.push([key]);
        else paths.push(...differingPaths(argsObject[key], c.match[key]).map((p) => [key, ...p]));
      }
      return { index, matchMode: "subset", differingPaths: paths };
    }
    return { index, matchMode: "exact", differingPaths: differingPaths(call.args, c.match) };
  });
  const detail = staticCases
    .map((c) =>
      c.notAnObject
        ? `case ${c.index} (subset): its match is not an object, which never matches in subset mode`
        : `case ${c.index} (${c.matchMode}): differs at ${c.differingPaths.slice(0, 5).map(formatPath).join(", ")}`,
    )
    .join("; ");
  return {
    reason: "no_static_case_matched",
    message:
      cases.length === 0 ? `The static rule for "${call.tool}" has no cases.` : `No static case matched: ${detail}.`,
    tool: call.tool,
    cacheKey: call.cacheKey,
    closest: closestRecordedCalls(base, call.tool, call.args),
    staticCases,
  };
}

export function explainFixtureMiss(
  base: BaseIndex,
  call: { tool: string; args: unknown; cacheKey: string | null },
): MissExplanation {
  const closest = closestRecordedCalls(base, call.tool, call.args);
  return {
    reason: "no_fixture",
    message: `No analyst fixture in this branch's log answers this "${call.tool}" call (fixtures match by cache key, then by step). ${describeClosest(call.tool, closest)}`,
    tool: call.tool,
    cacheKey: call.cacheKey,
    closest,
  };
}
