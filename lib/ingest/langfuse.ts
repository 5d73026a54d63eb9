import { MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { formatOutcome, isRecord, recordsOf, type FormatOutcome, type JsonImporter } from "./importer";
import type { JsonInput } from "./json";
import { isObject } from "./otlp/attributes";
import { assemble, type FinalStep, type ModelStep, type Step } from "./otlp/assemble";
import { formatPath, IssueList, type Path } from "./otlp/path";
import { generationStep, nanos, OPERATIONS, str, toolStepOf, type LangfuseObservation } from "./langfuse-steps";
import { platformSession, sessionTitle, stringTags } from "./session-summary";
import { firstLooksLike, importEach, type TraceFileImport, type TraceResult } from "./trace-files";
import type { ImportedSession, ImportIssue } from "./types";

// ---------------------------------------------------------------------------
// Langfuse traces, as its public API answers GET /api/public/traces/{id}
// (TraceWithFullDetails: the trace with `observations: ObservationsView[]`),
// or as a file of them (one trace, an array, JSON Lines, or a list page
// `{ data: [...] }` whose traces carry their observations).
//
// Observations (`type`):
// - GENERATION: a model_call. `input` is the messages sent (OpenAI chat shape:
//   an array, or `{ messages, tools? }`, or a prompt string); `output` the
//   assistant message (OpenAI shape, a completion with `choices`, or text),
//   with the tool calls it requested and their ids. Usage from `usageDetails`
//   (else the older `usage`, else promptTokens/completionTokens); cost from
//   `costDetails.total` (else `calculatedTotalCost`, else `usage.totalCost`).
// - TOOL, or a SPAN named as a tool a generation of the trace requested (and
//   holding no generation): a tool_call, tied to its request by the call id the
//   observation's metadata gives (`tool_call_id`), else by name and arguments.
// - RETRIEVER and EMBEDDING: steps of their own (`input.operation`).
// - SPAN, AGENT, CHAIN, EVALUATOR, GUARDRAIL: structure; each is kept in the
//   session's metadata (`langfuse.observations`), and an AGENT names the agent
//   of the steps under it.
// - EVENT: a point in time; kept in the metadata (`langfuse.events`).
// - any other type: kept as a step marked `unrecognized`, as it came.
// `level: ERROR` fails the step, with `statusMessage` as the error.
//
// Reject vs degrade: a trace without an id, an observation without an id, a
// type or a valid startTime, or an observation of another trace, refuses that
// trace with each problem's exact path. Shapes that cannot be read as
// messages are kept as they came and noted in `langfuse.notes`.
// ---------------------------------------------------------------------------

const STRUCTURE = new Set(["SPAN", "AGENT", "CHAIN", "EVALUATOR", "GUARDRAIL"]);

export type LangfuseTraceResult = TraceResult;

/** Maps one Langfuse trace (with its observations) to a session; `at` is where it sits in its document. */
export function mapLangfuseTrace(raw: unknown, at: Path = []): LangfuseTraceResult {
  const issues = new IssueList();
  if (!isObject(raw)) return { ok: false, issues: [{ path: formatPath(at), message: "a trace must be an object" }] };
  const id = raw.id;
  if (typeof id !== "string" || id === "") issues.add([...at, "id"], "a trace needs its id (a non-empty string)");
  else if (id.length > MAX_KEY_CHARS)
    issues.add([...at, "id"], `is ${id.length} characters long; the limit is ${MAX_KEY_CHARS}`);
  if (raw.timestamp !== undefined && raw.timestamp !== null && !validDate(raw.timestamp))
    issues.add([...at, "timestamp"], "must be an ISO 8601 date-time");
  const list = raw.observations;
  const observations: LangfuseObservation[] = [];
  if (list !== undefined && list !== null && !Array.isArray(list))
    issues.add([...at, "observations"], "must be an array");
  else if (Array.isArray(list)) {
    list.forEach((o: unknown, index) => {
      const p: Path = [...at, "observations", index];
      if (typeof o === "string") {
        issues.add(
          p,
          "observations are ids only (a trace list's shape): export the trace as GET /api/public/traces/{id} answers it, with its observations",
        );
        return;
      }
      if (!isObject(o)) return issues.add(p, "an observation must be an object");
      const oid = str(o.id);
      const type = str(o.type);
      if (!oid) issues.add([...p, "id"], "an observation needs its id");
      else if (oid.length > MAX_KEY_CHARS)
        issues.add([...p, "id"], `is ${oid.length} characters long; the limit is ${MAX_KEY_CHARS}`);
      if (!type) issues.add([...p, "type"], "an observation needs its type (GENERATION, SPAN, EVENT…)");
      if (!validDate(o.startTime)) issues.add([...p, "startTime"], "must be an ISO 8601 date-time");
      if (o.endTime !== undefined && o.endTime !== null && !validDate(o.endTime))
        issues.add([...p, "endTime"], "must be null or an ISO 8601 date-time");
      const traceId = o.traceId;
      if (typeof traceId === "string" && typeof id === "string" && id !== "" && traceId !== id)
        issues.add([...p, "traceId"], `belongs to trace ${JSON.stringify(traceId.slice(0, 80))}, not this one`);
      if (oid && type && validDate(o.startTime))
        observations.push({
          id: oid,
          type: type.toUpperCase(),
          name: str(o.name),
          startTime: o.startTime as string,
          endTime: validDate(o.endTime) ? (o.endTime as string) : null,
          parentId: str(o.parentObservationId),
          raw: o,
        });
    });
  }
  if (issues.length > 0) return { ok: false, issues: issues.list() };
  const traceId = id as string;
  const warnings: ImportIssue[] = [];
  const notes: string[] = [];
  const stepIds = new Set<string>();
  const steps = stepsOf(traceId, observations, at, warnings, notes, stepIds);
  const finalStep = finalOf(raw, traceId, observations);
  if (finalStep) steps.push(finalStep);
  if (steps.length === 0) {
    return {
      ok: false,
      issues: [
        {
          path: formatPath([...at, "observations"]),
          message: `trace ${traceId}: no generation, tool or other step, and no output: nothing to import`,
        },
      ],
    };
  }
  const events = assemble(steps);
  return { ok: true, session: sessionOf(raw, traceId, observations, events, notes, stepIds), warnings };
}

function validDate(v: unknown): boolean {
  return typeof v === "string" && v !== "" && Number.isFinite(Date.parse(v));
}

/** The steps of a trace's observations, in any order. */
function stepsOf(
  traceId: string,
  observations: readonly LangfuseObservation[],
  at: Path,
  warnings: ImportIssue[],
  notes: string[],
  stepIds: Set<string>,
): Step[] {
  const byId = new Map(observations.map((o) => [o.id, o]));
  const agentOf = (o: LangfuseObservation): string | undefined => {
    const seen = new Set<string>();
    for (let p = o.parentId ? byId.get(o.parentId) : undefined; p && !seen.has(p.id);) {
      seen.add(p.id);
      if (p.type === "AGENT" && p.name) return p.name;
      p = p.parentId ? byId.get(p.parentId) : undefined;
    }
    return undefined;
  };
  const pathOf = (o: LangfuseObservation) => [...at, "observations", observations.indexOf(o)];
  const warn = (o: LangfuseObservation, key: string) => (message: string) =>
    warnings.push({ path: formatPath([...pathOf(o), key]), message: `observation ${o.id}: ${message}` });

  const steps: Step[] = [];
  const models: ModelStep[] = [];
  for (const o of observations) {
    if (o.type !== "GENERATION") continue;
    const step = generationStep(traceId, o, warn, notes);
    const agent = agentOf(o);
    if (agent !== undefined) step.agent = agent;
    models.push(step);
    steps.push(step);
  }
  const requested = new Set(models.flatMap((m) => (m.output?.toolCalls ?? []).map((c) => c.name)));
  const holdsGeneration = new Set<string>();
  for (const o of observations) {
    if (o.type !== "GENERATION") continue;
    const seen = new Set<string>();
    for (let p = o.parentId; p && !seen.has(p); p = byId.get(p)?.parentId ?? null) {
      seen.add(p);
      holdsGeneration.add(p);
    }
  }
  for (const o of observations) {
    if (o.type === "GENERATION" || o.type === "EVENT") continue;
    const asTool =
      o.type === "TOOL" ||
      o.type in OPERATIONS ||
      (o.type === "SPAN" && o.name !== null && requested.has(o.name) && !holdsGeneration.has(o.id));
    const unknown = !STRUCTURE.has(o.type) && !asTool;
    if (!asTool && !unknown) continue;
    stepIds.add(o.id);
    if (unknown) warn(o, "type")(`type ${JSON.stringify(o.type)} is not one Branchpoint knows: kept as a step`);
    const step = toolStepOf(traceId, o, unknown, warn);
    const agent = agentOf(o);
    if (agent !== undefined) step.agent = agent;
    steps.push(step);
  }
  return steps;
}

/** The trace's own output, as the run's answer, at the end of its last observation. */
function finalOf(
  raw: Record<string, unknown>,
  traceId: string,
  observations: readonly LangfuseObservation[],
): FinalStep | null {
  const output = raw.output;
  if (output === undefined || output === null || output === "") return null;
  const ends = observations.map((o) => nanos(o.endTime ?? o.startTime));
  const atNs =
    ends.length > 0
      ? ends.reduce((a, b) => (a > b ? a : b))
      : validDate(raw.timestamp)
        ? nanos(raw.timestamp as string)
        : 0n;
  const answer =
    isObject(output) && output.role === "assistant" && typeof output.content === "string" ? output.content : output;
  return { kind: "final_output", traceId, key: `${traceId}#final`, atNs, output: answer };
}

function sessionOf(
  raw: Record<string, unknown>,
  traceId: string,
  observations: readonly LangfuseObservation[],
  events: ImportedSession["events"],
  notes: string[],
  stepIds: ReadonlySet<string>,
): ImportedSession {
  const name = str(raw.name);
  const starts = observations.map((o) => Date.parse(o.startTime));
  const timestamp = validDate(raw.timestamp) ? Date.parse(raw.timestamp as string) : null;
  const start = [...starts, ...(timestamp !== null ? [timestamp] : [])];
  // An EVENT is a point in time: it has no end.
  const open = observations.some((o) => o.type !== "EVENT" && o.endTime === null);
  const ends = observations.flatMap((o) => (o.endTime ? [Date.parse(o.endTime)] : []));
  const title = sessionTitle(raw.metadata, events, name);
  const toolSchemas = new Map<string, unknown>();
  for (const e of events) {
    if (e.kind !== "model_call") continue;
    const tools = (e.input as { tools?: unknown[] }).tools ?? [];
    for (const t of tools) {
      const fn = isObject(t) && isObject(t.function) ? t.function : isObject(t) ? t : null;
      if (fn && typeof fn.name === "string" && !toolSchemas.has(fn.name) && fn.parameters !== undefined)
        toolSchemas.set(fn.name, fn.parameters);
    }
  }
  const structure = observations
    .filter((o) => STRUCTURE.has(o.type) && !stepIds.has(o.id))
    .map((o) => ({
      id: o.id,
      type: o.type,
      name: o.name,
      parentObservationId: o.parentId,
      startTime: o.startTime,
      endTime: o.endTime,
      ...(o.raw.level !== undefined && o.raw.level !== "DEFAULT" ? { level: o.raw.level } : {}),
      ...(str(o.raw.statusMessage) ? { statusMessage: o.raw.statusMessage } : {}),
    }));
  const pointEvents = observations
    .filter((o) => o.type === "EVENT")
    .map((o) => ({
      id: o.id,
      name: o.name,
      startTime: o.startTime,
      parentObservationId: o.parentId,
      ...(o.raw.level !== undefined && o.raw.level !== "DEFAULT" ? { level: o.raw.level } : {}),
      ...(str(o.raw.statusMessage) ? { statusMessage: o.raw.statusMessage } : {}),
      ...(o.raw.input !== undefined && o.raw.input !== null ? { input: o.raw.input } : {}),
      ...(o.raw.output !== undefined && o.raw.output !== null ? { output: o.raw.output } : {}),
    }));
  const scores = Array.isArray(raw.scores)
    ? raw.scores.filter(isObject).map((s) => ({
        ...(s.name !== undefined ? { name: s.name } : {}),
        ...(s.value !== undefined ? { value: s.value } : {}),
        ...(s.stringValue !== undefined ? { stringValue: s.stringValue } : {}),
        ...(s.dataType !== undefined ? { dataType: s.dataType } : {}),
        ...(s.comment !== undefined && s.comment !== null ? { comment: s.comment } : {}),
      }))
    : [];
  const tags = stringTags(raw.tags);
  const langfuse = {
    traceId,
    ...(name ? { name } : {}),
    ...(str(raw.sessionId) ? { sessionId: raw.sessionId } : {}),
    ...(str(raw.userId) ? { userId: raw.userId } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(str(raw.release) ? { release: raw.release } : {}),
    ...(str(raw.version) ? { version: raw.version } : {}),
    ...(str(raw.environment) ? { environment: raw.environment } : {}),
    ...(str(raw.htmlPath) ? { htmlPath: raw.htmlPath } : {}),
    ...(typeof raw.totalCost === "number" && Number.isFinite(raw.totalCost) ? { totalCost: raw.totalCost } : {}),
    ...(typeof raw.latency === "number" && Number.isFinite(raw.latency) ? { latency: raw.latency } : {}),
    ...(isObject(raw.metadata) && Object.keys(raw.metadata).length > 0 ? { metadata: raw.metadata } : {}),
    ...(raw.input !== undefined && raw.input !== null ? { input: raw.input } : {}),
    ...(scores.length > 0 ? { scores } : {}),
    ...(structure.length > 0 ? { observations: structure } : {}),
    ...(pointEvents.length > 0 ? { events: pointEvents } : {}),
    ...(notes.length > 0 ? { notes: notes.slice(0, 100) } : {}),
  };
  return platformSession({
    format: "langfuse",
    externalId: traceId,
    title,
    agent: { name: name ?? "langfuse", adapter: "generic" },
    version: str(raw.version) ?? str(raw.release),
    starts: start,
    ends,
    open,
    details: langfuse,
    events,
    schemaOf: (tool) => (toolSchemas.has(tool) ? { schema: toolSchemas.get(tool) } : null),
  });
}

// ---------------------------------------------------------------------------

/** A Langfuse trace with its observations, as GET /api/public/traces/{id} answers it. */
export function looksLikeLangfuseTrace(value: unknown): boolean {
  if (!isRecord(value) || typeof value.id !== "string" || !Array.isArray(value.observations)) return false;
  const first: unknown = value.observations[0];
  if (isRecord(first)) return typeof first.type === "string" && "startTime" in first;
  return "timestamp" in value || "projectId" in value || "htmlPath" in value;
}

/** The traces of a file: a trace, an array or JSON Lines of them, or a list page `{ data: [...] }`. */
function tracesOf(input: JsonInput): { value: unknown; path: Path; line?: number }[] {
  if (input.shape === "document" && isRecord(input.value) && Array.isArray(input.value.data) && !("id" in input.value))
    return (input.value.data as unknown[]).map((value, index) => ({ value, path: ["data", index] }));
  return recordsOf(input);
}

/** Every trace of a file, all or nothing (a file is imported whole). */
export function importLangfuse(input: JsonInput): TraceFileImport {
  const records = tracesOf(input);
  if (records.length === 0) return { ok: false, issues: [{ path: "", message: "the document holds no traces" }] };
  return importEach(records, (record) => mapLangfuseTrace(record.value, record.path));
}

const detect = (input: JsonInput) => firstLooksLike(input, "data", looksLikeLangfuseTrace);

/** The registry entry for Langfuse trace exports. */
export const langfuseImporter: JsonImporter = {
  format: "langfuse",
  label:
    "langfuse (Langfuse traces with their observations, as GET /api/public/traces/{id} answers; one, an array or JSONL)",
  accepts: "json",
  detect,
  import: (input: JsonInput): FormatOutcome => formatOutcome(importLangfuse(input)),
};
