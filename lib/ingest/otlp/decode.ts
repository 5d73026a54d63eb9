import { repairLoneSurrogates } from "@/lib/hostile/text";
import { JsonTooDeepError, parseJsonBounded } from "@/lib/hostile/json";
import { setOwn } from "@/lib/hostile/objects";
import type { ImportIssue } from "../types";
import { exportTraceServiceRequestType } from "./proto";
import { formatPath, IssueList, type Path } from "./path";

// ---------------------------------------------------------------------------
// OTLP/HTTP trace export bodies (ExportTraceServiceRequest), JSON or protobuf,
// decoded to one flat list of spans. Pure over its input: no I/O; gzip is
// `gunzipIfNeeded` in ./gzip.ts, for the route to call first.
//
// What rejects: anything that breaks the protocol's structure — a body that is
// not an ExportTraceServiceRequest, a list that is not a list, a span without
// a valid trace id, span id or start time, an attribute that is not a
// KeyValue with an AnyValue. Each problem is reported at its exact path and no
// span of the request is returned (a request is all or nothing).
// What degrades silently, as the OTLP spec asks of receivers: unknown fields,
// unknown SpanKind/StatusCode numbers, a missing or zero end time (the span
// never ended: `endTimeUnixNano: null`).
// ---------------------------------------------------------------------------

export type OtlpAttributes = Record<string, unknown>;

export type OtlpSpanEvent = { name: string; timeUnixNano: string | null; attributes: OtlpAttributes };

export type OtlpStatus = {
  /** 0 unset, 1 ok, 2 error. */
  code: number;
  message: string;
};

/** One span, normalized from either encoding. Attribute values are plain JSON (ints as numbers when safe). */
export type OtlpSpan = {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** SpanKind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Nanoseconds since the epoch, as a decimal string (they exceed 2^53). */
  startTimeUnixNano: string;
  /** Null when the span has no end (never finished). */
  endTimeUnixNano: string | null;
  attributes: OtlpAttributes;
  events: OtlpSpanEvent[];
  status: OtlpStatus;
  /** The attributes of the span's resource (`service.name`, `session.id`…). */
  resource: OtlpAttributes;
  scope: { name: string; version: string | null };
  /** Where the span sat in the request it came in, e.g. `resourceSpans[0].scopeSpans[1].spans[3]`. */
  path: string;
};

export type DecodeResult = { ok: true; spans: OtlpSpan[] } | { ok: false; issues: ImportIssue[] };

/** Decodes an OTLP/HTTP JSON body (already gunzipped): text or bytes of UTF-8 JSON. */
export function decodeOtlpJson(body: string | Uint8Array): DecodeResult {
  let text: string;
  try {
    text = typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return { ok: false, issues: [{ path: "", message: "the body is not valid UTF-8 text" }] };
  }
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) return { ok: false, issues: [{ path: "", message: error.message }] };
    return { ok: false, issues: [{ path: "", message: `the body is not JSON: ${(error as Error).message}` }] };
  }
  return decodeOtlpJsonValue(value);
}

/** Decodes a parsed OTLP JSON document (an ExportTraceServiceRequest). */
export function decodeOtlpJsonValue(value: unknown): DecodeResult {
  const issues = new IssueList();
  const spans = readRequest(value, issues, "json");
  return issues.length > 0
    ? { ok: false, issues: issues.list() }
    : { ok: true, spans: repairLoneSurrogates(spans).value };
}

/** Decodes an OTLP/HTTP protobuf body (already gunzipped). */
export function decodeOtlpProtobuf(bytes: Uint8Array): DecodeResult {
  let message: Record<string, unknown>;
  try {
    const type = exportTraceServiceRequestType();
    message = type.toObject(type.decode(bytes), {
      longs: String,
      bytes: String, // base64; ids are turned into hex below
      defaults: false,
      arrays: true,
      oneofs: false,
    });
  } catch (error) {
    return {
      ok: false,
      issues: [
        { path: "", message: `the body is not a protobuf ExportTraceServiceRequest: ${(error as Error).message}` },
      ],
    };
  }
  const issues = new IssueList();
  const spans = readRequest(message, issues, "protobuf");
  return issues.length > 0
    ? { ok: false, issues: issues.list() }
    : { ok: true, spans: repairLoneSurrogates(spans).value };
}

// ---------------------------------------------------------------------------

export type Encoding = "json" | "protobuf";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A field by its lowerCamelCase name or, as proto3 JSON parsers also accept, its proto name. */
export function field(obj: Record<string, unknown>, camel: string): { key: string; value: unknown } | undefined {
  if (obj[camel] !== undefined) return { key: camel, value: obj[camel] };
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake !== camel && obj[snake] !== undefined) return { key: snake, value: obj[snake] };
  return undefined;
}

export function list(
  obj: Record<string, unknown>,
  camel: string,
  path: Path,
  issues: IssueList,
): { key: string; items: unknown[] } | null {
  const f = field(obj, camel);
  if (f === undefined || f.value === null) return { key: camel, items: [] };
  if (!Array.isArray(f.value)) {
    issues.add([...path, f.key], "must be an array");
    return null;
  }
  return { key: f.key, items: f.value };
}

function readRequest(value: unknown, issues: IssueList, encoding: Encoding): OtlpSpan[] {
  if (!isObject(value)) {
    issues.add([], "an OTLP trace export must be a JSON object with `resourceSpans`");
    return [];
  }
  const resourceSpans = list(value, "resourceSpans", [], issues);
  if (!resourceSpans) return [];
  if (field(value, "resourceSpans") === undefined && Object.keys(value).length > 0) {
    issues.add([], "an OTLP trace export must have `resourceSpans`");
    return [];
  }
  const spans: OtlpSpan[] = [];
  resourceSpans.items.forEach((rs, i) => {
    const rsPath: Path = [resourceSpans.key, i];
    if (!isObject(rs)) return issues.add(rsPath, "must be an object (ResourceSpans)");
    let resource: OtlpAttributes = {};
    const res = field(rs, "resource");
    if (res !== undefined && res.value !== null) {
      if (!isObject(res.value)) issues.add([...rsPath, res.key], "must be an object (Resource)");
      else resource = readAttributes(res.value, [...rsPath, res.key], issues);
    }
    const scopeSpans = list(rs, "scopeSpans", rsPath, issues);
    if (!scopeSpans) return;
    scopeSpans.items.forEach((ss, j) => {
      const ssPath: Path = [...rsPath, scopeSpans.key, j];
      if (!isObject(ss)) return issues.add(ssPath, "must be an object (ScopeSpans)");
      const scope = readScope(ss, ssPath, issues);
      const spanList = list(ss, "spans", ssPath, issues);
      if (!spanList) return;
      spanList.items.forEach((span, k) => {
        const spanPath: Path = [...ssPath, spanList.key, k];
        const read = readSpan(span, spanPath, issues, encoding);
        if (read) spans.push({ ...read, resource, scope, path: formatPath(spanPath) });
      });
    });
  });
  return spans;
}

export function readScope(ss: Record<string, unknown>, path: Path, issues: IssueList): OtlpSpan["scope"] {
  const f = field(ss, "scope");
  if (f === undefined || f.value === null) return { name: "", version: null };
  if (!isObject(f.value)) {
    issues.add([...path, f.key], "must be an object (InstrumentationScope)");
    return { name: "", version: null };
  }
  const name = optionalString(f.value, "name", [...path, f.key], issues) ?? "";
  const version = optionalString(f.value, "version", [...path, f.key], issues);
  return { name, version: version === "" ? null : version };
}

export function optionalString(
  obj: Record<string, unknown>,
  camel: string,
  path: Path,
  issues: IssueList,
): string | null {
  const f = field(obj, camel);
  if (f === undefined || f.value === null) return null;
  if (typeof f.value !== "string") {
    issues.add([...path, f.key], "must be a string");
    return null;
  }
  return f.value;
}

type SpanCore = Omit<OtlpSpan, "resource" | "scope" | "path">;

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

function readSpan(span: unknown, path: Path, issues: IssueList, encoding: Encoding): SpanCore | null {
  if (!isObject(span)) {
    issues.add(path, "must be an object (Span)");
    return null;
  }
  const before = issues.length;
  const traceId = readId(span, "traceId", 16, path, issues, encoding, true);
  const spanId = readId(span, "spanId", 8, path, issues, encoding, true);
  const parentSpanId = readId(span, "parentSpanId", 8, path, issues, encoding, false);
  const name = optionalString(span, "name", path, issues) ?? "";
  const kind = readEnum(span, "kind", SPAN_KINDS, path, issues);
  const start = readNanos(span, "startTimeUnixNano", path, issues);
  if (start === null && field(span, "startTimeUnixNano") === undefined) {
    issues.add([...path, "startTimeUnixNano"], "is required");
  }
  const end = readNanos(span, "endTimeUnixNano", path, issues);
  const attributes = readAttributes(span, path, issues);
  const events: OtlpSpanEvent[] = [];
  const eventList = list(span, "events", path, issues);
  eventList?.items.forEach((event, i) => {
    const eventPath: Path = [...path, eventList.key, i];
    if (!isObject(event)) return issues.add(eventPath, "must be an object (Event)");
    events.push({
      name: optionalString(event, "name", eventPath, issues) ?? "",
      timeUnixNano: readNanos(event, "timeUnixNano", eventPath, issues),
      attributes: readAttributes(event, eventPath, issues),
    });
  });
  let status: OtlpStatus = { code: 0, message: "" };
  const statusField = field(span, "status");
  if (statusField !== undefined && statusField.value !== null) {
    if (!isObject(statusField.value)) issues.add([...path, statusField.key], "must be an object (Status)");
    else {
      const statusPath: Path = [...path, statusField.key];
      status = {
        code: readEnum(statusField.value, "code", STATUS_CODES, statusPath, issues),
        message: optionalString(statusField.value, "message", statusPath, issues) ?? "",
      };
    }
  }
  if (issues.length > before || traceId === null || spanId === null || start === null) return null;
  return {
    traceId,
    spanId,
    parentSpanId,
    name,
    kind,
    startTimeUnixNano: start,
    endTimeUnixNano: end === "0" ? null : end,
    attributes,
    events,
    status,
  };
}

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A trace or span id: hex in OTLP JSON; base64 from proto3 JSON encoders and from our protobuf decoding. */
export function readId(
  span: Record<string, unknown>,
  camel: string,
  bytes: number,
  path: Path,
  issues: IssueList,
  encoding: Encoding,
  required: boolean,
): string | null {
  const f = field(span, camel);
  const key = f?.key ?? camel;
  if (f === undefined || f.value === null || f.value === "") {
    if (required) issues.add([...path, key], "is required");
    return null;
  }
  if (typeof f.value !== "string") {
    issues.add([...path, key], `must be a string of ${bytes * 2} hex digits`);
    return null;
  }
  let hex: string | null = null;
  if (encoding === "json" && f.value.length === bytes * 2 && HEX.test(f.value)) hex = f.value.toLowerCase();
  else if (BASE64.test(f.value)) {
    const decoded = Buffer.from(f.value, "base64");
    if (decoded.length === bytes) hex = decoded.toString("hex");
  }
  if (hex === null) {
    issues.add([...path, key], `must be ${bytes * 2} hex digits (${bytes} bytes)`);
    return null;
  }
  if (/^0+$/.test(hex)) {
    if (required) issues.add([...path, key], "must not be all zeros");
    return null;
  }
  return hex;
}

function readEnum(
  obj: Record<string, unknown>,
  camel: string,
  names: Record<string, number>,
  path: Path,
  issues: IssueList,
): number {
  const f = field(obj, camel);
  if (f === undefined || f.value === null) return 0;
  if (typeof f.value === "number" && Number.isInteger(f.value)) return f.value;
  if (typeof f.value === "string" && f.value in names) return names[f.value] ?? 0;
  if (typeof f.value === "string") return 0; // an enum name from a newer spec: unknown, degrade
  issues.add([...path, f.key], "must be an integer enum value");
  return 0;
}

/**
 * The largest timestamp stored (2^63 - 1 ns, in the year 2262): spans keep their times in signed 64-bit
 * columns, so a later one (a fixed64 can reach 2554) is refused here, naming its field, not by the database.
 */
const MAX_NANOS = 9_223_372_036_854_775_807n;

/** A fixed64 nanosecond timestamp: a decimal string (proto3 JSON) or a number. */
export function readNanos(obj: Record<string, unknown>, camel: string, path: Path, issues: IssueList): string | null {
  const f = field(obj, camel);
  if (f === undefined || f.value === null) return null;
  let ns: bigint | null = null;
  if (typeof f.value === "string" && /^\d{1,30}$/.test(f.value)) ns = BigInt(f.value);
  else if (typeof f.value === "number" && Number.isFinite(f.value) && f.value >= 0) ns = BigInt(Math.round(f.value));
  if (ns !== null && ns <= MAX_NANOS) return ns.toString();
  if (ns !== null) {
    issues.add([...path, f.key], `is out of range: nanoseconds since 1970 are at most ${MAX_NANOS} (in the year 2262)`);
    return null;
  }
  issues.add([...path, f.key], "must be a non-negative integer of nanoseconds (a decimal string)");
  return null;
}

/** The `attributes` list of `owner` as a record; duplicate keys: the last one wins. */
export function readAttributes(owner: Record<string, unknown>, path: Path, issues: IssueList): OtlpAttributes {
  const out: OtlpAttributes = {};
  const attributes = list(owner, "attributes", path, issues);
  attributes?.items.forEach((kv, i) => {
    const kvPath: Path = [...path, attributes.key, i];
    const read = readKeyValue(kv, kvPath, issues, 0);
    if (read) setOwn(out, read.key, read.value);
  });
  return out;
}

const MAX_DEPTH = 64;

function readKeyValue(
  kv: unknown,
  path: Path,
  issues: IssueList,
  depth: number,
): { key: string; value: unknown } | null {
  if (!isObject(kv)) {
    issues.add(path, "must be an object (KeyValue)");
    return null;
  }
  const key = kv.key;
  if (typeof key !== "string" || key === "") {
    issues.add([...path, "key"], "must be a non-empty string");
    return null;
  }
  const value = "value" in kv ? readAnyValue(kv.value, [...path, "value"], issues, depth + 1) : null;
  return value === undefined ? null : { key, value };
}

/** An AnyValue as plain JSON: undefined when malformed (and reported). */
export function readAnyValue(value: unknown, path: Path, issues: IssueList, depth: number): unknown {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) {
    issues.add(
      path,
      "must be an AnyValue object ({ stringValue | intValue | doubleValue | boolValue | arrayValue | kvlistValue | bytesValue })",
    );
    return undefined;
  }
  if (depth > MAX_DEPTH) {
    issues.add(path, "is nested too deeply");
    return undefined;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return null; // an empty AnyValue
  if (keys.length > 1) {
    issues.add(path, `must hold exactly one value, found ${keys.join(", ")}`);
    return undefined;
  }
  const key = keys[0]!;
  const inner = value[key];
  const at: Path = [...path, key];
  switch (key) {
    case "stringValue":
    case "string_value":
      if (typeof inner === "string") return inner;
      break;
    case "boolValue":
    case "bool_value":
      if (typeof inner === "boolean") return inner;
      break;
    case "intValue":
    case "int_value":
      if (typeof inner === "number" && Number.isInteger(inner)) return inner;
      if (typeof inner === "string" && /^-?\d+$/.test(inner)) {
        const n = Number(inner);
        return Number.isSafeInteger(n) ? n : inner;
      }
      issues.add(at, "must be an integer (a number or a decimal string)");
      return undefined;
    case "doubleValue":
    case "double_value":
      if (typeof inner === "number") return inner;
      if (inner === "NaN" || inner === "Infinity" || inner === "-Infinity") return inner; // not JSON numbers: kept as text
      if (typeof inner === "string" && inner.trim() !== "" && Number.isFinite(Number(inner))) return Number(inner);
      issues.add(at, "must be a number");
      return undefined;
    case "bytesValue":
    case "bytes_value":
      if (typeof inner === "string" && BASE64.test(inner)) return inner;
      issues.add(at, "must be base64 text");
      return undefined;
    case "arrayValue":
    case "array_value": {
      if (!isObject(inner)) break;
      const values = list(inner, "values", at, issues);
      if (!values) return undefined;
      const out: unknown[] = [];
      let bad = false;
      values.items.forEach((item, i) => {
        const read = readAnyValue(item, [...at, values.key, i], issues, depth + 1);
        if (read === undefined) bad = true;
        else out.push(read);
      });
      return bad ? undefined : out;
    }
    case "kvlistValue":
    case "kvlist_value": {
      if (!isObject(inner)) break;
      const values = list(inner, "values", at, issues);
      if (!values) return undefined;
      const out: Record<string, unknown> = {};
      let bad = false;
      values.items.forEach((item, i) => {
        const read = readKeyValue(item, [...at, values.key, i], issues, depth + 1);
        if (read === null) bad = true;
        else setOwn(out, read.key, read.value);
      });
      return bad ? undefined : out;
    }
    default:
      issues.add(path, `unknown AnyValue field ${JSON.stringify(key)}`);
      return undefined;
  }
  issues.add(at, `has the wrong type (${inner === null ? "null" : Array.isArray(inner) ? "array" : typeof inner})`);
  return undefined;
}
