import { JsonTooDeepError, parseJsonBounded } from "@/lib/hostile/json";
import { repairLoneSurrogates } from "@/lib/hostile/text";
import type { ImportIssue } from "../types";
import { isObject, SpanAttributes } from "./attributes";
import {
  field,
  list,
  optionalString,
  readAnyValue,
  readAttributes,
  readId,
  readNanos,
  type Encoding,
  type OtlpAttributes,
  type OtlpSpan,
  type OtlpSpanEvent,
} from "./decode";
import { GENAI_MESSAGE_EVENTS, messagesFromEvents } from "./genai-events";
import { exportLogsServiceRequestType } from "./proto";
import { formatPath, IssueList, type Path } from "./path";

// ---------------------------------------------------------------------------
// OTLP/HTTP log exports (ExportLogsServiceRequest), JSON or protobuf: the GenAI
// conventions' events sent as log records (`gen_ai.user.message`,
// `gen_ai.choice`, `gen_ai.client.inference.operation.details`, …) with the
// trace and span ids of the model span they belong to. Each such record is
// read as the span event the conventions had before events moved to logs (its
// body, a map, as `gen_ai.event.content`), so the span's mapping reads it as
// it reads span events (./genai-events.ts).
//
// Pure over its input, as ./decode.ts: the protocol's structure is checked at
// exact paths, and a request is all or nothing. Records that are not GenAI
// message events are skipped (a log pipeline sends everything); a GenAI event
// without a span to attach to is counted, for the answer's partial success.
// ---------------------------------------------------------------------------

export type OtlpLogRecord = {
  /** 32 lowercase hex digits, or null when the record names no trace. */
  traceId: string | null;
  spanId: string | null;
  /** `eventName`, else the older `event.name` attribute; "" when neither. */
  eventName: string;
  /** The record's time, else its observed time (nanoseconds, decimal). */
  timeUnixNano: string | null;
  attributes: OtlpAttributes;
  /** The body as plain JSON; null when it has none. */
  body: unknown;
  /** Where it sat in the request, e.g. `resourceLogs[0].scopeLogs[0].logRecords[2]`. */
  path: string;
};

/** A GenAI event of a span: the record and the span it names. */
export type SpanLogEvent = { traceId: string; spanId: string; event: OtlpSpanEvent; path: string };

export type LogsDecodeResult = { ok: true; records: OtlpLogRecord[] } | { ok: false; issues: ImportIssue[] };

/** An OTLP/HTTP JSON logs body (already gunzipped). */
export function decodeOtlpLogsJson(body: Uint8Array): LogsDecodeResult {
  let value: unknown;
  try {
    value = parseJsonBounded(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (error) {
    if (error instanceof JsonTooDeepError) return { ok: false, issues: [{ path: "", message: error.message }] };
    if (error instanceof TypeError)
      return { ok: false, issues: [{ path: "", message: "the body is not valid UTF-8 text" }] };
    return { ok: false, issues: [{ path: "", message: `the body is not JSON: ${(error as Error).message}` }] };
  }
  return decodeOtlpLogsJsonValue(value);
}

export function decodeOtlpLogsJsonValue(value: unknown): LogsDecodeResult {
  return finish(value, "json");
}

/** An OTLP/HTTP protobuf logs body (already gunzipped). */
export function decodeOtlpLogsProtobuf(bytes: Uint8Array): LogsDecodeResult {
  let message: Record<string, unknown>;
  try {
    const type = exportLogsServiceRequestType();
    message = type.toObject(type.decode(bytes), { longs: String, bytes: String, defaults: false, arrays: true });
  } catch (error) {
    const reason = (error as Error).message;
    return {
      ok: false,
      issues: [{ path: "", message: `the body is not a protobuf ExportLogsServiceRequest: ${reason}` }],
    };
  }
  return finish(message, "protobuf");
}

function finish(value: unknown, encoding: Encoding): LogsDecodeResult {
  const issues = new IssueList();
  const records = readRequest(value, issues, encoding);
  return issues.length > 0
    ? { ok: false, issues: issues.list() }
    : { ok: true, records: repairLoneSurrogates(records).value };
}

function readRequest(value: unknown, issues: IssueList, encoding: Encoding): OtlpLogRecord[] {
  if (!isObject(value) || (field(value, "resourceLogs") === undefined && Object.keys(value).length > 0)) {
    issues.add([], "an OTLP logs export must be a JSON object with `resourceLogs`");
    return [];
  }
  const records: OtlpLogRecord[] = [];
  const resourceLogs = list(value, "resourceLogs", [], issues);
  resourceLogs?.items.forEach((rl, i) => {
    const rlPath: Path = [resourceLogs.key, i];
    if (!isObject(rl)) return issues.add(rlPath, "must be an object (ResourceLogs)");
    const scopeLogs = list(rl, "scopeLogs", rlPath, issues);
    scopeLogs?.items.forEach((sl, j) => {
      const slPath: Path = [...rlPath, scopeLogs.key, j];
      if (!isObject(sl)) return issues.add(slPath, "must be an object (ScopeLogs)");
      const logRecords = list(sl, "logRecords", slPath, issues);
      logRecords?.items.forEach((record, k) => {
        const read = readRecord(record, [...slPath, logRecords.key, k], issues, encoding);
        if (read) records.push(read);
      });
    });
  });
  return records;
}

function readRecord(record: unknown, path: Path, issues: IssueList, encoding: Encoding): OtlpLogRecord | null {
  if (!isObject(record)) {
    issues.add(path, "must be an object (LogRecord)");
    return null;
  }
  const before = issues.length;
  const traceId = readId(record, "traceId", 16, path, issues, encoding, false);
  const spanId = readId(record, "spanId", 8, path, issues, encoding, false);
  const time = readNanos(record, "timeUnixNano", path, issues);
  const observed = readNanos(record, "observedTimeUnixNano", path, issues);
  const attributes = readAttributes(record, path, issues);
  const bodyField = field(record, "body");
  const body = bodyField === undefined ? null : readAnyValue(bodyField.value, [...path, bodyField.key], issues, 1);
  const named = optionalString(record, "eventName", path, issues);
  if (issues.length > before) return null;
  const legacy = attributes["event.name"];
  const eventName = named || (typeof legacy === "string" ? legacy : "");
  const timeUnixNano = time !== null && time !== "0" ? time : observed !== null && observed !== "0" ? observed : null;
  return { traceId, spanId, eventName, timeUnixNano, attributes, body: body ?? null, path: formatPath(path) };
}

/** A record as the span event the conventions had before logs: its body, when it has one, as `gen_ai.event.content`. */
export function spanEventOf(record: OtlpLogRecord): OtlpSpanEvent {
  const attributes: OtlpAttributes = { ...record.attributes };
  delete attributes["event.name"];
  if (record.body !== null) attributes["gen_ai.event.content"] = record.body;
  return { name: record.eventName, timeUnixNano: record.timeUnixNano, attributes };
}

/**
 * The GenAI message events of an export, each with the span it names; `unattached` counts those that name no
 * span. A record whose content cannot be read is an issue at its path (the request is refused: stored, it would
 * refuse every later export of its span).
 */
export function genAiLogEvents(
  records: readonly OtlpLogRecord[],
): { ok: true; events: SpanLogEvent[]; unattached: number } | { ok: false; issues: ImportIssue[] } {
  const events: SpanLogEvent[] = [];
  const issues: ImportIssue[] = [];
  let unattached = 0;
  for (const record of records) {
    if (!GENAI_MESSAGE_EVENTS.has(record.eventName)) continue;
    if (record.traceId === null || record.spanId === null) {
      unattached += 1;
      continue;
    }
    const event = spanEventOf(record);
    issues.push(...eventIssues(record, event));
    events.push({ traceId: record.traceId, spanId: record.spanId, event, path: record.path });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, events, unattached };
}

/** What reading the event as a span's event warns of, at the record's path. */
function eventIssues(record: OtlpLogRecord, event: OtlpSpanEvent): ImportIssue[] {
  const warnings: ImportIssue[] = [];
  const span: OtlpSpan = {
    traceId: record.traceId!,
    spanId: record.spanId!,
    parentSpanId: null,
    name: "",
    kind: 0,
    startTimeUnixNano: "0",
    endTimeUnixNano: null,
    attributes: {},
    events: [event],
    status: { code: 0, message: "" },
    resource: {},
    scope: { name: "", version: null },
    path: record.path,
  };
  messagesFromEvents(new SpanAttributes(span, warnings));
  return warnings.map((w) => ({
    path: record.path,
    message: `${record.eventName}: ${w.message.replace(/^span [0-9a-f]+ \(unnamed\): event 0 \([^)]*\): /, "")}`,
  }));
}

const eventKey = (e: OtlpSpanEvent) => JSON.stringify([e.name, e.timeUnixNano, e.attributes]);

/**
 * The span with the log events that name it added to its own events (those it has already, by content, once),
 * in time order after its own; the span itself when none is new.
 */
export function withLogEvents(span: OtlpSpan, events: readonly OtlpSpanEvent[]): OtlpSpan {
  const seen = new Set(span.events.map(eventKey));
  const added: OtlpSpanEvent[] = [];
  for (const event of events) {
    const key = eventKey(event);
    if (seen.has(key)) continue;
    seen.add(key);
    added.push(event);
  }
  if (added.length === 0) return span;
  const ns = (e: OtlpSpanEvent) => BigInt(e.timeUnixNano ?? "0");
  // A stable sort: events of one time keep the order they were sent in.
  const sorted = [...span.events, ...added].sort((a, b) => (ns(a) < ns(b) ? -1 : ns(a) > ns(b) ? 1 : 0));
  return { ...span, events: sorted };
}
