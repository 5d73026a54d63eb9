import { MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { setOwn } from "@/lib/hostile/objects";
import { formatOutcome, isRecord, recordsOf, type FormatOutcome, type JsonImporter } from "./importer";
import type { JsonInput } from "./json";
import { isObject } from "./otlp/attributes";
import { assemble, type FinalStep, type Step } from "./otlp/assemble";
import { formatPath, IssueList, type Path } from "./otlp/path";
import { nanos, str, type Warn } from "./langfuse-steps";
import { llmStep, toolSpanStep, type BraintrustSpan } from "./braintrust-steps";
import { platformSession, sessionTitle, stringTags } from "./session-summary";
import { firstLooksLike, importEach, noStepsIn, type TraceFileImport, type TraceResult } from "./trace-files";
import type { ImportedSession, ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// Braintrust traces: the spans (rows) of one trace as its project logs or an experiment hold them, read from
// `POST /btql` (`{ data: [...] }`), `/v1/project_logs/{id}/fetch` (`{ events: [...] }`), an array or JSON Lines
// export; rows are grouped into traces by `root_span_id`, which is the session's external id (a re-import finds
// it again).
//
// Spans (`span_attributes.type`):
// - llm: a model_call. Messages from `input` (chat messages, or `{ messages }`), the answer from `output` (the
//   response's choices, `{ choices }`, a message or text) with the tool calls it requested and their ids; the
//   model from `metadata.model`; tokens and cost from `metrics` (`prompt_tokens`, `completion_tokens`,
//   `estimated_cost`); times from `metrics.start` / `metrics.end` (Unix seconds), else `created`.
// - tool: a tool_call (`input` its arguments, `output` its result), tied to its request by the `tool_call_id`
//   on its metadata or input, else by name and arguments.
// - task, function, eval: structure, kept in `braintrust.spans` of the metadata; the root's output is the
//   session's final answer, its input, expected, scores, metadata and tags are kept.
// - score: its scores, kept in `braintrust.scoreSpans`.
// - any other type (or none): kept as a step marked `unrecognized`, as it came, with a warning.
// `error` fails the step (`Name: message` text is read as its type and message).
//
// Reject vs degrade: a row without its span_id or root_span_id, without a start, or with span_parents not a list
// refuses the trace with each problem's exact path; shapes that cannot be read as messages are kept and noted.
// ---------------------------------------------------------------------------

const STRUCTURE = new Set(["task", "function", "eval"]);

/** Unix seconds (a number, as `metrics.start` is) or ISO text (as `created` is) as ISO 8601 UTC, or null. */
export function braintrustTime(value: unknown): string | null {
  let ms = NaN;
  if (typeof value === "number") ms = Math.round(value * 1000);
  else if (typeof value === "string" && value !== "") ms = Date.parse(value);
  return Number.isFinite(ms) && ms >= 0 && ms <= 8.64e15 ? new Date(ms).toISOString() : null;
}

type Read = { span: BraintrustSpan; path: Path; parents: string[] };

/** A later row of a span over an earlier one: its fields win, objects (metrics, span_attributes…) merged a level deep. */
function merged(earlier: Record<string, unknown>, later: Record<string, unknown>): Record<string, unknown> {
  const out = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    const before = out[key];
    if (isObject(before) && isObject(value)) {
      const both = { ...before };
      for (const [k, v] of Object.entries(value)) setOwn(both, k, v);
      setOwn(out, key, both);
    } else setOwn(out, key, value);
  }
  return out;
}

/** Reads one trace's rows; each problem is an issue at its path. */
function readSpans(list: readonly { value: unknown; path: Path }[], issues: IssueList) {
  // A span logged in several rows (an update merged into it): the later row's fields win, metrics merged.
  const rows = new Map<string, { raw: Record<string, unknown>; path: Path }>();
  for (const { value, path: p } of list) {
    if (!isObject(value)) {
      issues.add(p, "a span must be an object");
      continue;
    }
    const id = str(value.span_id);
    if (!id) issues.add([...p, "span_id"], "a span needs its span_id (a non-empty string)");
    else if (id.length > MAX_KEY_CHARS)
      issues.add([...p, "span_id"], `is ${id.length} characters long; the limit is ${MAX_KEY_CHARS}`);
    if (value.metrics !== undefined && value.metrics !== null && !isObject(value.metrics))
      issues.add([...p, "metrics"], "must be an object of metrics");
    if (!id || id.length > MAX_KEY_CHARS) continue;
    const previous = rows.get(id);
    if (!previous) rows.set(id, { raw: value, path: p });
    else rows.set(id, { raw: merged(previous.raw, value), path: previous.path });
  }
  const spans: Read[] = [];
  const roots = new Set<string>();
  for (const [id, { raw, path: p }] of rows) {
    const before = issues.length;
    const root = str(raw.root_span_id);
    if (!root) issues.add([...p, "root_span_id"], "a span needs its root_span_id (a non-empty string)");
    else if (root.length > MAX_KEY_CHARS)
      issues.add([...p, "root_span_id"], `is ${root.length} characters long; the limit is ${MAX_KEY_CHARS}`);
    const parents = raw.span_parents;
    if (parents !== undefined && parents !== null && !(Array.isArray(parents) && parents.every((x) => str(x))))
      issues.add([...p, "span_parents"], "must be null or a list of span ids");
    const metrics = isObject(raw.metrics) ? raw.metrics : {};
    const start = braintrustTime(metrics.start) ?? braintrustTime(raw.created);
    if (!start) issues.add([...p, "metrics", "start"], "a span needs its start (Unix seconds) or its created time");
    const openEnd = metrics.end === undefined || metrics.end === null;
    const end = openEnd ? null : braintrustTime(metrics.end);
    if (!openEnd && !end) issues.add([...p, "metrics", "end"], "must be null or Unix seconds");
    if (issues.length > before || !root || !start) continue;
    roots.add(root);
    const attrs = isObject(raw.span_attributes) ? raw.span_attributes : {};
    const list = Array.isArray(parents) ? (parents as string[]) : [];
    spans.push({
      path: p,
      parents: list,
      span: {
        id,
        type: (str(attrs.type) ?? "").toLowerCase(),
        name: str(attrs.name),
        startTime: start,
        endTime: end,
        parentId: list[0] ?? null,
        raw,
      },
    });
  }
  return { spans, roots };
}

/** Maps one trace's rows (any order) to a session; each item's `path` is where it sits in its document. */
export function mapBraintrustTrace(list: readonly { value: unknown; path: Path }[]): TraceResult {
  const issues = new IssueList();
  const { spans, roots } = readSpans(list, issues);
  if (roots.size > 1)
    issues.add(list[0]?.path ?? [], `the spans belong to ${roots.size} traces; a session is one trace`);
  if (issues.length === 0 && spans.length === 0) issues.add([], "no spans: nothing to import");
  if (issues.length > 0) return { ok: false, issues: issues.list() };
  const traceId = [...roots][0]!;
  const root = spans.find((s) => s.span.id === traceId) ?? spans.find((s) => s.parents.length === 0) ?? spans[0]!;
  const warnings: ImportIssue[] = [];
  const notes: string[] = [];
  const paths = new Map(spans.map((s) => [s.span, s.path]));
  const warn: Warn = (span, key) => (message) =>
    warnings.push({ path: formatPath([...(paths.get(span) ?? []), key]), message: `span ${span.id}: ${message}` });
  const steps: Step[] = [];
  const structure: Read[] = [];
  const scores: Record<string, unknown>[] = [];
  for (const read of spans) {
    const { span } = read;
    if (span.type === "llm") steps.push(llmStep(traceId, span, warn, notes));
    else if (span.type === "tool") steps.push(toolSpanStep(traceId, span, false, warn));
    else if (span.type === "score")
      scores.push({
        spanId: span.id,
        name: span.name,
        ...(isObject(span.raw.scores) ? { scores: span.raw.scores } : {}),
        ...(span.raw.output !== undefined && span.raw.output !== null ? { output: span.raw.output } : {}),
      });
    else if (STRUCTURE.has(span.type) || (span.type === "" && read === root)) structure.push(read);
    else {
      warn(
        span,
        "span_attributes.type",
      )(
        span.type === ""
          ? "the span has no type: kept as a step"
          : `span type ${JSON.stringify(span.type)} is not one Branchpoint knows: kept as a step`,
      );
      steps.push(toolSpanStep(traceId, span, true, warn));
    }
  }
  const final = finalOf(root, structure, traceId, spans);
  if (final) steps.push(final);
  if (steps.length === 0) return noStepsIn(list, traceId);
  const session = sessionOf(root, traceId, spans, assemble(steps), { notes, structure, scores });
  return { ok: true, session, warnings };
}

/** The root span's output, as the run's answer, at the trace's end. */
function finalOf(root: Read, structure: readonly Read[], traceId: string, spans: readonly Read[]): FinalStep | null {
  if (!structure.includes(root)) return null;
  const output = root.span.raw.output;
  if (output === undefined || output === null) return null;
  const ends = spans.map((s) => nanos(s.span.endTime ?? s.span.startTime));
  return {
    kind: "final_output",
    traceId,
    key: `${traceId}#final`,
    atNs: ends.reduce((a, b) => (a > b ? a : b)),
    output,
  };
}

function sessionOf(
  root: Read,
  traceId: string,
  spans: readonly Read[],
  events: ImportedSession["events"],
  kept: { notes: string[]; structure: readonly Read[]; scores: Record<string, unknown>[] },
): ImportedSession {
  const raw = root.span.raw;
  const metadata = isObject(raw.metadata) && Object.keys(raw.metadata).length > 0 ? raw.metadata : null;
  const starts = spans.map((s) => Date.parse(s.span.startTime));
  const open = spans.some((s) => s.span.endTime === null);
  const ends = spans.flatMap((s) => (s.span.endTime ? [Date.parse(s.span.endTime)] : []));
  const title = sessionTitle(metadata, events, root.span.name);
  const structure = kept.structure.map(({ span, parents }) => ({
    spanId: span.id,
    type: span.type || null,
    name: span.name,
    parents,
    start: span.startTime,
    end: span.endTime,
    ...(span.raw.error !== undefined && span.raw.error !== null ? { error: span.raw.error } : {}),
  }));
  const tags = stringTags(raw.tags);
  const has = (v: unknown) => v !== undefined && v !== null;
  const braintrust = {
    rootSpanId: traceId,
    ...(root.span.name ? { name: root.span.name } : {}),
    ...(str(raw.project_id) ? { projectId: raw.project_id } : {}),
    ...(str(raw.experiment_id) ? { experimentId: raw.experiment_id } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(metadata ? { metadata } : {}),
    ...(has(raw.input) ? { input: raw.input } : {}),
    ...(has(raw.expected) ? { expected: raw.expected } : {}),
    ...(isObject(raw.scores) && Object.keys(raw.scores).length > 0 ? { scores: raw.scores } : {}),
    ...(has(raw.error) ? { error: raw.error } : {}),
    ...(structure.length > 0 ? { spans: structure } : {}),
    ...(kept.scores.length > 0 ? { scoreSpans: kept.scores } : {}),
    ...(kept.notes.length > 0 ? { notes: kept.notes.slice(0, 100) } : {}),
  };
  const version = metadata ? (str(metadata.version) ?? str(metadata.agent_version)) : null;
  return platformSession({
    format: "braintrust",
    externalId: traceId,
    title,
    agent: { name: root.span.name ?? "braintrust", adapter: "generic" },
    version,
    starts,
    ends,
    open,
    details: braintrust,
    events,
  });
}

// ---------------------------------------------------------------------------

/** A Braintrust span row, as project logs, an experiment or a BTQL query over them give it. */
export function looksLikeBraintrustSpan(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.span_id === "string" &&
    typeof value.root_span_id === "string" &&
    ("span_attributes" in value || "span_parents" in value)
  );
}

type Placed = { value: unknown; path: Path; line?: number };

/** The rows of a file: an array or JSON Lines of rows, a BTQL answer `{ data }` or a fetch page `{ events }`. */
function rowsOf(input: JsonInput): Placed[] {
  const v = input.shape === "document" ? input.value : null;
  for (const key of ["data", "events"])
    if (isRecord(v) && Array.isArray(v[key]))
      return (v[key] as unknown[]).map((value, index) => ({ value, path: [key, index] }));
  return recordsOf(input);
}

/** Rows grouped into traces by root span id (a row without one is a trace of its own, refused with its path). */
function traces(records: readonly Placed[]): Placed[][] {
  const groups = new Map<string, Placed[]>();
  records.forEach((r, index) => {
    const key = (isObject(r.value) ? str(r.value.root_span_id) : null) ?? `#${index}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  });
  return [...groups.values()];
}

/** Every trace of a file, all or nothing (a file is imported whole). */
export function importBraintrust(input: JsonInput): TraceFileImport {
  const records = rowsOf(input);
  if (records.length === 0) return { ok: false, issues: [{ path: "", message: "the document holds no spans" }] };
  const groups = traces(records).map((rows) => ({ rows, line: rows[0]?.line }));
  return importEach(groups, (group) => mapBraintrustTrace(group.rows));
}

const detect = (input: JsonInput) =>
  firstLooksLike(input, "data", looksLikeBraintrustSpan) || firstLooksLike(input, "events", looksLikeBraintrustSpan);

/** The registry entry for Braintrust project-log and experiment exports. */
export const braintrustImporter: JsonImporter = {
  format: "braintrust",
  label:
    "braintrust (Braintrust project logs or experiment rows, as POST /btql { data } or /v1/project_logs/{id}/fetch { events } answer them; an array or JSONL)",
  accepts: "json",
  detect,
  import: (input: JsonInput): FormatOutcome => formatOutcome(importBraintrust(input)),
};
