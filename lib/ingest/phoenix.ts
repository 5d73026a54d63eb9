import { formatOutcome, type FormatOutcome, type JsonImporter } from "./importer";
import { isRecord, recordsOf } from "./importer";
import type { JsonInput } from "./json";
import { str } from "./langfuse-steps";
import { SpanAttributes, isObject } from "./otlp/attributes";
import { assemble, type Step } from "./otlp/assemble";
import { readSpan } from "./otlp/conventions";
import type { OtlpSpan } from "./otlp/decode";
import { digestOf, sessionFields } from "./otlp/digest";
import { factsOf, stepsOf } from "./otlp/map";
import { IssueList, formatPath, type Path } from "./otlp/path";
import { toolStep } from "./otlp/reading";
import { phoenixSpan } from "./phoenix-spans";
import { firstLooksLike, importEach, type TraceFileImport, type TraceResult } from "./trace-files";
import type { ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// Arize Phoenix traces: the spans of one trace (as its REST spans API answers them, or a span export: an array,
// JSON Lines, or a page `{ data: [...] }`), read as OTLP spans (./phoenix-spans.ts) and mapped with the same
// OpenInference reading the OTLP importer uses: LLM spans are model calls (messages, tool calls with their ids,
// token counts, model), TOOL spans tool calls, AGENT/CHAIN spans structure and the final answer. RETRIEVER and
// EMBEDDING spans are steps of their own; any other span kind is kept as a step marked `unrecognized`, with a
// warning. One trace is one session, its trace id the external id (a re-import finds it again).
//
// Reject vs degrade: a span without its ids or a valid start_time, attributes nested too deep, or spans of two
// traces in one refuse the trace with each problem's exact path; attributes of the wrong type are warnings.
// ---------------------------------------------------------------------------

const STRUCTURE = new Set(["LLM", "TOOL", "AGENT", "CHAIN"]);
const OPERATIONS: Record<string, string> = { RETRIEVER: "retrieval", EMBEDDING: "embedding" };

/** A step for a span of a kind the OpenInference reading leaves out: retrieval, embedding, or unrecognized. */
function otherStep(span: OtlpSpan, warnings: ImportIssue[]): Step | null {
  const kind = (str(span.attributes["openinference.span.kind"]) ?? "").toUpperCase();
  if (kind === "" || STRUCTURE.has(kind)) return null;
  const attrs = new SpanAttributes(span, warnings);
  const operation = OPERATIONS[kind];
  if (!operation)
    attrs.warn(
      "openinference.span.kind",
      `span kind ${JSON.stringify(kind)} is not one Branchpoint knows: kept as a step`,
    );
  const step = toolStep(attrs, span.name || kind.toLowerCase(), null, "input.value", "output.value");
  return { ...step, operation: operation ?? kind.toLowerCase(), ...(operation ? {} : { unrecognized: true as const }) };
}

/** Maps one trace's spans (any order) to a session; each item's `path` is where it sits in its document. */
export function mapPhoenixTrace(list: readonly { value: unknown; path: Path }[]): TraceResult {
  const issues = new IssueList();
  const spans = list.flatMap(({ value, path }) => phoenixSpan(value, path, issues) ?? []);
  const traceIds = new Set(spans.map((s) => s.traceId));
  if (traceIds.size > 1)
    issues.add(list[0]?.path ?? [], `the spans belong to ${traceIds.size} traces; a session is one trace`);
  if (issues.length === 0 && spans.length === 0) issues.add([], "no spans: nothing to import");
  if (issues.length > 0) return { ok: false, issues: issues.list() };
  const traceId = spans[0]!.traceId;
  const warnings: ImportIssue[] = [];
  const readings = spans.map((span) => readSpan(span, warnings));
  const steps = [...stepsOf(readings), ...spans.flatMap((span) => otherStep(span, warnings) ?? [])];
  const events = assemble(steps);
  const fields = sessionFields(`trace:${traceId}`, readings.map(digestOf), factsOf(events), "phoenix", warnings);
  if (!fields)
    return {
      ok: false,
      issues: [
        { path: formatPath(list[0]?.path ?? []), message: `trace ${traceId}: no LLM or TOOL span: nothing to import` },
      ],
    };
  const root = spans.find((s) => s.parentSpanId === null);
  const sessionId = spans.map((s) => str(s.attributes["session.id"])).find((s) => s !== null);
  const phoenix = { traceId, ...(root ? { rootSpan: root.name } : {}), ...(sessionId ? { sessionId } : {}) };
  const session = {
    ...fields,
    externalId: traceId,
    metadata: { ...fields.metadata, source: "phoenix", phoenix },
    events,
  };
  return { ok: true, session, warnings };
}

/** A Phoenix span as the REST API or a span export gives it. */
export function looksLikePhoenixSpan(value: unknown): boolean {
  return (
    isRecord(value) &&
    isObject(value.context) &&
    typeof value.context.trace_id === "string" &&
    typeof value.context.span_id === "string" &&
    "start_time" in value &&
    ("span_kind" in value || "attributes" in value)
  );
}

type Placed = { value: unknown; path: Path; line?: number };

/** The spans of a file (an array or JSON Lines of spans, or an API page `{ data: [...] }`), grouped by trace. */
function traces(input: JsonInput): Placed[][] {
  const v = input.shape === "document" ? input.value : null;
  const records: Placed[] =
    isRecord(v) && Array.isArray(v.data)
      ? (v.data as unknown[]).map((value, index) => ({ value, path: ["data", index] }))
      : recordsOf(input);
  const groups = new Map<string, Placed[]>();
  records.forEach((r, index) => {
    const context = isObject(r.value) && isObject(r.value.context) ? r.value.context : {};
    const key = str(context.trace_id) ?? `#${index}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  });
  return [...groups.values()];
}

/** Every trace of a file, all or nothing (a file is imported whole). */
export function importPhoenix(input: JsonInput): TraceFileImport {
  const groups = traces(input).map((spans) => ({ spans, line: spans[0]?.line }));
  if (groups.length === 0) return { ok: false, issues: [{ path: "", message: "the document holds no spans" }] };
  return importEach(groups, (group) => mapPhoenixTrace(group.spans));
}

/** The registry entry for Phoenix span exports. */
export const phoenixImporter: JsonImporter = {
  format: "phoenix",
  label: "phoenix (Arize Phoenix spans, as its REST spans API answers them or exported; an array, { data } or JSONL)",
  accepts: "json",
  detect: (input: JsonInput) => firstLooksLike(input, "data", looksLikePhoenixSpan),
  import: (input: JsonInput): FormatOutcome => formatOutcome(importPhoenix(input)),
};
