import { indexBase } from "./base-index";
import type { EventStatus, SessionEvent } from "./events";
import { toolCallArgs } from "./identity";
import { formatPath } from "./json";
import type { MissExplanation, MissReason } from "./miss";
import { ruleFor, type Policy } from "./policy";
import type { PendingCall, ReplayStep } from "./replay-types";

/**
 * Policy coverage: per tool, which source answered each branch call, the
 * misses grouped by reason (with the closest recorded call and the argument
 * paths that differ), and the recorded calls the branch never used
 * (vcrpy's `all_played`). Pure: from the base events, the branch steps and
 * the policy the branch ran under.
 */

export const COVERAGE_SOURCES = ["recorded", "static", "fixture", "live", "llm", "error_result", "blocked"] as const;
export type CoverageSource = (typeof COVERAGE_SOURCES)[number];

export interface CoverageClosest {
  seq: number;
  args: unknown;
  status: EventStatus;
}

export interface CoverageMiss {
  reason: MissReason;
  /** How many calls missed for this reason. */
  count: number;
  /** Branch steps that missed (a call the branch still waits on has no step and is not listed here). */
  steps: number[];
  /** Whether the call the branch is paused on missed for this reason. */
  pending: boolean;
  /** The closest recorded call of the first miss of this reason, when the base has one. */
  closest: CoverageClosest | null;
  /** Argument paths that differ from the closest recorded call, over every miss of this reason (`a.b[2]`). */
  differingPaths: string[];
}

export interface UnusedRecording {
  seq: number;
  args: unknown;
  status: EventStatus;
  /** Set when coverage sums several replays (an experiment). */
  sessionId?: string;
  replayId?: string;
}

export interface ToolCoverage {
  tool: string;
  /** Tool-call steps of the branch for this tool. */
  calls: number;
  bySource: Record<CoverageSource, number>;
  /** Calls whose result an analyst edited (not one of the policy's sources). */
  edited: number;
  misses: CoverageMiss[];
  unused: UnusedRecording[];
}

export interface Coverage {
  tools: ToolCoverage[];
}

export interface CoverageInput {
  base: readonly SessionEvent[];
  steps: readonly ReplayStep[];
  /** The policy the branch ran under; null when unknown (every recorded answer then counts as from the base). */
  policy: Policy | null;
  /** The call a paused branch waits on, whose miss counts too. */
  pending?: Pick<PendingCall, "tool" | "miss"> | null;
}

const PATH_LIMIT = 20;

const emptySources = (): Record<CoverageSource, number> =>
  ({ recorded: 0, static: 0, fixture: 0, live: 0, llm: 0, error_result: 0, blocked: 0 }) satisfies Record<
    CoverageSource,
    number
  >;

const isCoverageSource = (s: string): s is CoverageSource => (COVERAGE_SOURCES as readonly string[]).includes(s);

class ToolTable {
  private readonly map = new Map<string, ToolCoverage>();
  of(tool: string): ToolCoverage {
    let t = this.map.get(tool);
    if (!t) {
      t = { tool, calls: 0, bySource: emptySources(), edited: 0, misses: [], unused: [] };
      this.map.set(tool, t);
    }
    return t;
  }
  sorted(): ToolCoverage[] {
    return [...this.map.values()].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }
}

function addMiss(tool: ToolCoverage, miss: MissExplanation, step: number | null): void {
  let group = tool.misses.find((m) => m.reason === miss.reason);
  const first = miss.closest[0];
  if (!group) {
    group = {
      reason: miss.reason,
      count: 0,
      steps: [],
      pending: false,
      closest: first ? { seq: first.seq, args: first.args, status: first.status } : null,
      differingPaths: [],
    };
    tool.misses.push(group);
  }
  group.count++;
  if (step === null) group.pending = true;
  else group.steps.push(step);
  for (const path of first?.differingPaths ?? []) {
    const text = formatPath(path);
    if (group.differingPaths.length < PATH_LIMIT && !group.differingPaths.includes(text))
      group.differingPaths.push(text);
  }
}

/**
 * Which base recordings the branch used. A `recorded` tool step consumes the
 * next finished recording with its cache key (identical calls consume the
 * occurrences in order, as the engine does); under a history rule with a
 * wider scope the answer came from another session, so only a step that is an
 * unchanged copy of its base event counts.
 */
function usedRecordings(
  base: ReturnType<typeof indexBase>,
  steps: readonly ReplayStep[],
  policy: Policy | null,
): Set<number> {
  const used = new Set<number>();
  const consumed = new Map<string, number>();
  for (const step of steps) {
    if (step.kind !== "tool_call" || step.source !== "recorded") continue;
    const rule = policy ? ruleFor(policy.tools, step.name).rule : null;
    const wider = rule !== null && rule.type === "history" && rule.scope !== "baseline";
    if (wider) {
      const event = step.baseSeq === null ? undefined : base.bySeq.get(step.baseSeq);
      if (step.equalsBase && event && event.kind === "tool_call" && event.cacheKey === step.cacheKey)
        used.add(event.seq);
      continue;
    }
    if (step.cacheKey === null) continue;
    const n = consumed.get(step.cacheKey) ?? 0;
    const recording = base.finishedByKey.get(step.cacheKey)?.[n];
    consumed.set(step.cacheKey, n + 1);
    if (recording) used.add(recording.seq);
  }
  return used;
}

/** Coverage of one branch against its base session. */
export function replayCoverage(input: CoverageInput): Coverage {
  const base = indexBase(input.base);
  const table = new ToolTable();
  for (const step of input.steps) {
    if (step.kind !== "tool_call") continue;
    const tool = table.of(step.name);
    tool.calls++;
    if (isCoverageSource(step.source)) tool.bySource[step.source]++;
    else if (step.source === "edit") tool.edited++;
    if (step.miss) addMiss(tool, step.miss, step.seq);
  }
  if (input.pending?.miss) addMiss(table.of(input.pending.tool), input.pending.miss, null);

  const used = usedRecordings(base, input.steps, input.policy);
  for (const event of base.events) {
    if (event.kind !== "tool_call" || used.has(event.seq)) continue;
    table.of(event.name).unused.push({ seq: event.seq, args: toolCallArgs(event), status: event.status });
  }
  return { tools: table.sorted() };
}

/** Coverage summed over several branches (an experiment): unused recordings name their session and replay. */
export function mergeCoverage(parts: readonly { sessionId: string; replayId: string; coverage: Coverage }[]): Coverage {
  const table = new ToolTable();
  for (const part of parts) {
    for (const t of part.coverage.tools) {
      const tool = table.of(t.tool);
      tool.calls += t.calls;
      tool.edited += t.edited;
      for (const s of COVERAGE_SOURCES) tool.bySource[s] += t.bySource[s];
      for (const m of t.misses) {
        const group = tool.misses.find((g) => g.reason === m.reason);
        if (!group) {
          // Steps are per replay; across an experiment only the counts and paths add up.
          tool.misses.push({ ...m, steps: [], differingPaths: [...m.differingPaths] });
          continue;
        }
        group.count += m.count;
        group.pending ||= m.pending;
        group.closest ??= m.closest;
        for (const p of m.differingPaths)
          if (group.differingPaths.length < PATH_LIMIT && !group.differingPaths.includes(p))
            group.differingPaths.push(p);
      }
      for (const u of t.unused) tool.unused.push({ ...u, sessionId: part.sessionId, replayId: part.replayId });
    }
  }
  return { tools: table.sorted() };
}

/** One CSV field, RFC 4180: quoted when it holds a comma, quote or line break; cells a spreadsheet would run as a formula are prefixed with `'`. */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const CSV_HEADER = [
  "row",
  "tool",
  "calls",
  ...COVERAGE_SOURCES,
  "edited",
  "reason",
  "count",
  "steps",
  "closest_seq",
  "differing_paths",
  "session_id",
  "replay_id",
  "seq",
  "args",
];

/**
 * Coverage as CSV, one table with a `row` column: `tool` rows (counts per
 * source), `miss` rows (one per tool and reason) and `unused` rows (one per
 * recorded call never used, its arguments as JSON).
 */
export function coverageCsv(coverage: Coverage): string {
  const lines = [CSV_HEADER.join(",")];
  const blank = (n: number) => Array<string>(n).fill("");
  for (const t of coverage.tools) {
    lines.push(
      [
        csvField("tool"),
        csvField(t.tool),
        String(t.calls),
        ...COVERAGE_SOURCES.map((s) => String(t.bySource[s])),
        String(t.edited),
        ...blank(9),
      ].join(","),
    );
    for (const m of t.misses) {
      lines.push(
        [
          "miss",
          csvField(t.tool),
          ...blank(COVERAGE_SOURCES.length + 2),
          csvField(m.reason),
          String(m.count),
          csvField(m.steps.join(" ")),
          m.closest ? String(m.closest.seq) : "",
          csvField(m.differingPaths.join(" ")),
          ...blank(4),
        ].join(","),
      );
    }
    for (const u of t.unused) {
      lines.push(
        [
          "unused",
          csvField(t.tool),
          ...blank(COVERAGE_SOURCES.length + 7),
          csvField(u.sessionId ?? null),
          csvField(u.replayId ?? null),
          String(u.seq),
          csvField(JSON.stringify(u.args) ?? "null"),
        ].join(","),
      );
    }
  }
  return lines.join("\r\n") + "\r\n";
}
