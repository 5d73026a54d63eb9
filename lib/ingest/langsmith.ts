import { MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { formatOutcome, isRecord, recordsOf, type FormatOutcome, type JsonImporter } from "./importer";
import type { JsonInput } from "./json";
import { isObject } from "./otlp/attributes";
import { assemble, type FinalStep, type Step } from "./otlp/assemble";
import { formatPath, IssueList, type Path } from "./otlp/path";
import { nanos, str } from "./langfuse-steps";
import { llmStep, RUN_OPERATIONS, toolRunStep, type LangSmithRun, type RunWarn } from "./langsmith-steps";
import { platformSession, sessionTitle, stringTags } from "./session-summary";
import { firstLooksLike, importEach, noStepsIn, type TraceFileImport, type TraceResult } from "./trace-files";
import type { ImportedSession, ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// LangSmith runs, as its runs API answers POST /api/v1/runs/query (a trace's
// runs, flat, each with `trace_id` and `parent_run_id`), or as the SDK reads a
// run with its `child_runs` nested; a file holds such runs (an array, JSON
// Lines, or a query page `{ runs: [...] }`), grouped into traces by trace id.
//
// Runs (`run_type`):
// - llm: a model_call. Messages from `inputs.messages` (LangChain's serialized
//   messages, a batch `[[…]]` or flat, or OpenAI chat messages), `inputs.prompts`
//   or `inputs.prompt`; the answer from `outputs.generations` (its message, with
//   the tool calls it requested and their ids), `outputs.choices`, or a message.
//   Tokens from the run (`prompt_tokens`, `completion_tokens`), else
//   `usage_metadata`, `llm_output.token_usage` or OpenAI's `usage`; cost from
//   `total_cost` (else prompt_cost + completion_cost).
// - tool: a tool_call (`inputs`, `outputs.output` or a ToolMessage's content),
//   tied to its request by the ToolMessage's `tool_call_id`, else by name/args.
// - retriever, embedding: steps of their own (`input.operation`).
// - chain, prompt, parser: structure, kept in `langsmith.runs` of the metadata.
// - any other run_type: kept as a step marked `unrecognized`, as it came.
// `error` (a string) fails the step. Times without a zone are UTC (the API's).
//
// Reject vs degrade: a run without an id, a run_type or a valid start_time, or
// runs of two traces in one, refuse the trace with each problem's exact path;
// shapes that cannot be read as messages are kept and noted (`langsmith.notes`).
// ---------------------------------------------------------------------------

const STRUCTURE = new Set(["chain", "prompt", "parser"]);

/** A LangSmith time (ISO text, with or without a zone; or epoch milliseconds) as ISO 8601 UTC, or null. */
export function runTime(value: unknown): string | null {
  let ms = NaN;
  if (typeof value === "string" && value !== "") {
    const zoned = /[zZ]|[+-]\d\d:?\d\d$/.test(value.slice(10)) ? value : `${value}Z`;
    ms = Date.parse(zoned);
  } else if (typeof value === "number") ms = value;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
}

/** Reads one trace's runs; each problem is an issue at its path. */
function readRuns(list: readonly { value: unknown; path: Path }[], issues: IssueList) {
  const runs: LangSmithRun[] = [];
  const traceIds = new Set<string>();
  for (const { value, path: p } of list) {
    if (!isObject(value)) {
      issues.add(p, "a run must be an object");
      continue;
    }
    const id = str(value.id);
    const type = str(value.run_type);
    const start = runTime(value.start_time);
    const end = value.end_time === undefined || value.end_time === null ? null : runTime(value.end_time);
    if (!id) issues.add([...p, "id"], "a run needs its id (a non-empty string)");
    else if (id.length > MAX_KEY_CHARS)
      issues.add([...p, "id"], `is ${id.length} characters long; the limit is ${MAX_KEY_CHARS}`);
    if (!type) issues.add([...p, "run_type"], "a run needs its run_type (llm, tool, chain…)");
    if (!start) issues.add([...p, "start_time"], "must be an ISO 8601 date-time or epoch milliseconds");
    if (value.end_time !== undefined && value.end_time !== null && !end)
      issues.add([...p, "end_time"], "must be null or an ISO 8601 date-time");
    const traceId = str(value.trace_id);
    if (traceId) traceIds.add(traceId);
    const endOk = value.end_time === undefined || value.end_time === null || end !== null;
    if (id && type && start && endOk)
      runs.push({
        id,
        type: type.toLowerCase(),
        name: str(value.name),
        startTime: start,
        endTime: end,
        parentId: str(value.parent_run_id),
        raw: value,
      });
  }
  return { runs, traceIds };
}

/** Maps one trace's runs (flat, any order) to a session; `at` is where they sit in their document. */
export function mapLangSmithTrace(list: readonly { value: unknown; path: Path }[]): TraceResult {
  const issues = new IssueList();
  const { runs, traceIds } = readRuns(list, issues);
  if (traceIds.size > 1)
    issues.add(list[0]?.path ?? [], `the runs belong to ${traceIds.size} traces; a session is one trace`);
  const ids = new Set(runs.map((r) => r.id));
  const roots = runs.filter((r) => r.parentId === null || !ids.has(r.parentId));
  if (issues.length === 0 && runs.length === 0) issues.add([], "no runs: nothing to import");
  if (issues.length > 0) return { ok: false, issues: issues.list() };
  const root = roots.find((r) => r.parentId === null) ?? roots[0]!;
  const traceId = [...traceIds][0] ?? root.id;
  const paths = new Map(runs.map((r, i) => [r, list[i]?.path ?? []]));
  const warnings: ImportIssue[] = [];
  const notes: string[] = [];
  const warn: RunWarn = (run, key) => (message) =>
    warnings.push({ path: formatPath([...(paths.get(run) ?? []), key]), message: `run ${run.id}: ${message}` });
  const steps: Step[] = [];
  const stepIds = new Set<string>();
  for (const run of runs) {
    if (STRUCTURE.has(run.type)) continue;
    stepIds.add(run.id);
    if (run.type === "llm") {
      steps.push(llmStep(traceId, run, warn, notes));
      continue;
    }
    const unknown = run.type !== "tool" && !(run.type in RUN_OPERATIONS);
    if (unknown)
      warn(run, "run_type")(`run_type ${JSON.stringify(run.type)} is not one Branchpoint knows: kept as a step`);
    steps.push(toolRunStep(traceId, run, unknown));
  }
  const final = finalOf(root, traceId, runs);
  if (final) steps.push(final);
  if (steps.length === 0) return noStepsIn(list, traceId);
  const session = sessionOf(root, traceId, runs, assemble(steps), notes, stepIds);
  return { ok: true, session, warnings };
}

/** The root run's outputs, as the run's answer, at its end. */
function finalOf(root: LangSmithRun, traceId: string, runs: readonly LangSmithRun[]): FinalStep | null {
  if (!STRUCTURE.has(root.type)) return null;
  const outputs = root.raw.outputs;
  if (outputs === undefined || outputs === null || (isObject(outputs) && Object.keys(outputs).length === 0))
    return null;
  let answer: unknown = outputs;
  if (isObject(outputs)) {
    const messages = Array.isArray(outputs.messages) ? outputs.messages : null;
    const last: unknown = messages?.[messages.length - 1];
    const lastContent = isObject(last) ? (isObject(last.kwargs) ? last.kwargs.content : last.content) : undefined;
    answer = outputs.output ?? outputs.answer ?? (typeof lastContent === "string" ? lastContent : outputs);
  }
  const ends = runs.map((r) => nanos(r.endTime ?? r.startTime));
  const atNs = ends.reduce((a, b) => (a > b ? a : b));
  return { kind: "final_output", traceId, key: `${traceId}#final`, atNs, output: answer };
}

function sessionOf(
  root: LangSmithRun,
  traceId: string,
  runs: readonly LangSmithRun[],
  events: ImportedSession["events"],
  notes: string[],
  stepIds: ReadonlySet<string>,
): ImportedSession {
  const raw = root.raw;
  const extra = isObject(raw.extra) ? raw.extra : {};
  const metadata = isObject(extra.metadata) ? extra.metadata : null;
  const starts = runs.map((r) => Date.parse(r.startTime));
  const open = runs.some((r) => r.endTime === null);
  const ends = runs.flatMap((r) => (r.endTime ? [Date.parse(r.endTime)] : []));
  const title = sessionTitle(metadata, events, root.name);
  const structure = runs
    .filter((r) => !stepIds.has(r.id))
    .map((r) => ({
      id: r.id,
      run_type: r.type,
      name: r.name,
      parent_run_id: r.parentId,
      start_time: r.startTime,
      end_time: r.endTime,
      ...(str(r.raw.error) ? { error: r.raw.error } : {}),
    }));
  const tags = stringTags(raw.tags);
  const langsmith = {
    traceId,
    ...(root.name ? { name: root.name } : {}),
    ...(str(raw.session_id) ? { projectId: raw.session_id } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(raw.inputs !== undefined && raw.inputs !== null ? { inputs: raw.inputs } : {}),
    ...(str(raw.error) ? { error: raw.error } : {}),
    ...(str(raw.app_path) ? { appPath: raw.app_path } : {}),
    ...(isObject(raw.feedback_stats) && Object.keys(raw.feedback_stats).length > 0
      ? { feedbackStats: raw.feedback_stats }
      : {}),
    ...(structure.length > 0 ? { runs: structure } : {}),
    ...(notes.length > 0 ? { notes: notes.slice(0, 100) } : {}),
  };
  const version = metadata ? (str(metadata.revision_id) ?? str(metadata.ls_version)) : null;
  return platformSession({
    format: "langsmith",
    externalId: traceId,
    title,
    agent: {
      name: root.name ?? "langsmith",
      adapter: metadata && "langgraph_step" in metadata ? "langgraph" : "generic",
    },
    version,
    starts,
    ends,
    open,
    details: langsmith,
    events,
  });
}

// ---------------------------------------------------------------------------

/** A LangSmith run as the runs API or the SDK gives it. */
export function looksLikeLangSmithRun(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.run_type === "string" &&
    "start_time" in value &&
    ("trace_id" in value || "dotted_order" in value || "child_runs" in value || "inputs" in value)
  );
}

type Placed = { value: unknown; path: Path; line?: number };

/** The runs of a file: an array or JSON Lines of runs, or a query page `{ runs: [...] }`. */
function runsOf(input: JsonInput): Placed[] {
  const v = input.shape === "document" ? input.value : null;
  if (isRecord(v) && Array.isArray(v.runs))
    return (v.runs as unknown[]).map((value, index) => ({ value, path: ["runs", index] }));
  return recordsOf(input);
}

/** Every run, its nested `child_runs` brought up beside it (each child inherits its parent's trace). */
function flatten(records: readonly Placed[]): (Placed & { trace: string | null })[] {
  const out: (Placed & { trace: string | null })[] = [];
  const stack = records.map((r) => ({ ...r, inherited: null as string | null, parent: null as string | null }));
  while (stack.length > 0) {
    const r = stack.shift()!;
    const v = r.value;
    const own = isObject(v) ? str(v.trace_id) : null;
    const trace = own ?? r.inherited;
    if (isObject(v) && Array.isArray(v.child_runs)) {
      const { child_runs: children, ...run } = v;
      out.push({
        ...r,
        value: r.parent && run.parent_run_id == null ? { ...run, parent_run_id: r.parent } : run,
        trace,
      });
      const here = trace ?? str(v.id);
      (children as unknown[]).forEach((value, index) =>
        stack.push({ value, path: [...r.path, "child_runs", index], line: r.line, inherited: here, parent: str(v.id) }),
      );
    } else
      out.push({
        ...r,
        value: r.parent && isObject(v) && v.parent_run_id == null ? { ...v, parent_run_id: r.parent } : v,
        trace,
      });
  }
  return out;
}

/** Runs grouped into traces: by trace id, else by the run tree they hang from. */
function traces(records: readonly Placed[]): Placed[][] {
  const runs = flatten(records);
  const parentOf = new Map<string, string | null>();
  for (const r of runs)
    if (isObject(r.value) && str(r.value.id)) parentOf.set(str(r.value.id)!, str(r.value.parent_run_id));
  const rootOf = (id: string) => {
    const seen = new Set<string>();
    let at = id;
    while (parentOf.get(at) && !seen.has(at)) {
      seen.add(at);
      at = parentOf.get(at)!;
    }
    return at;
  };
  const groups = new Map<string, Placed[]>();
  runs.forEach((r, index) => {
    const id = isObject(r.value) ? str(r.value.id) : null;
    const key = r.trace ?? (id ? rootOf(id) : `#${index}`);
    const group = groups.get(key) ?? [];
    group.push(r);
    groups.set(key, group);
  });
  return [...groups.values()];
}

/** Every trace of a file, all or nothing (a file is imported whole). */
export function importLangSmith(input: JsonInput): TraceFileImport {
  const records = runsOf(input);
  if (records.length === 0) return { ok: false, issues: [{ path: "", message: "the document holds no runs" }] };
  const groups = traces(records).map((runs) => ({ runs, line: runs[0]?.line }));
  return importEach(groups, (group) => mapLangSmithTrace(group.runs));
}

const detect = (input: JsonInput) => firstLooksLike(input, "runs", looksLikeLangSmithRun);

/** The registry entry for LangSmith run exports. */
export const langSmithImporter: JsonImporter = {
  format: "langsmith",
  label:
    "langsmith (LangSmith runs, as POST /api/v1/runs/query answers them or with child_runs nested; an array, { runs } or JSONL)",
  accepts: "json",
  detect,
  import: (input: JsonInput): FormatOutcome => formatOutcome(importLangSmith(input)),
};
