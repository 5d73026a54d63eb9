/**
 * Arize Phoenix spans (its REST API's `GET /v1/projects/{project}/spans` answers them, and its span exports hold
 * them) read as the OTLP spans lib/ingest/otlp maps: `context.trace_id/span_id`, `parent_id`, `name`,
 * `span_kind`, `start_time`/`end_time` (ISO 8601, microseconds), `status_code` (OK / ERROR / UNSET) with
 * `status_message`, `attributes` (OpenInference, flat dotted keys or nested objects: both read the same) and
 * `events` (`exception` events carry the error). Every outside key goes through setOwn: no prototype is touched.
 */
import { MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { setOwn } from "@/lib/hostile/objects";
import { isObject } from "./otlp/attributes";
import type { OtlpSpan, OtlpSpanEvent } from "./otlp/decode";
import { formatPath, type IssueList, type Path } from "./otlp/path";
import { str } from "./langfuse-steps";

/** How deep nested attributes may go before the span is refused. */
const MAX_ATTRIBUTE_DEPTH = 32;
const STATUS: Record<string, number> = { UNSET: 0, OK: 1, ERROR: 2 };

/** An ISO 8601 time (a zone or UTC; any fraction of a second) as nanoseconds since the epoch, or null. */
export function phoenixNanos(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|z|[+-]\d\d:?\d\d)?$/.exec(value.trim());
  if (!m) return null;
  const ms = Date.parse(`${m[1]}${m[3] ?? "Z"}`);
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) return null;
  return (BigInt(ms) * 1_000_000n + BigInt((m[2] ?? "").padEnd(9, "0"))).toString();
}

/** Nested attributes as OpenInference's flat dotted keys (`llm.input_messages.0.message.role`); false: too deep. */
export function flattenAttributes(value: Record<string, unknown>): Record<string, unknown> | false {
  const out: Record<string, unknown> = {};
  const walk = (node: unknown, prefix: string, depth: number): boolean => {
    if (depth > MAX_ATTRIBUTE_DEPTH) return false;
    const entries = isObject(node)
      ? Object.entries(node)
      : Array.isArray(node) && node.some((v) => isObject(v) || Array.isArray(v))
        ? node.map((v, i) => [String(i), v] as const)
        : null;
    if (entries === null) {
      setOwn(out, prefix, node);
      return true;
    }
    for (const [key, child] of entries)
      if (!walk(child, prefix === "" ? key : `${prefix}.${key}`, depth + 1)) return false;
    return true;
  };
  return walk(value, "", 0) ? out : false;
}

function eventsOf(value: unknown, path: Path, issues: IssueList): OtlpSpanEvent[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.add(path, "must be a list of events");
    return [];
  }
  return value.flatMap((e, i): OtlpSpanEvent[] => {
    if (!isObject(e)) return [];
    const attributes = isObject(e.attributes) ? flattenAttributes(e.attributes) : {};
    if (attributes === false) {
      issues.add([...path, i, "attributes"], `nested more than ${MAX_ATTRIBUTE_DEPTH} levels deep`);
      return [];
    }
    return [{ name: str(e.name) ?? "", timeUnixNano: phoenixNanos(e.timestamp), attributes }];
  });
}

function idAt(value: unknown, path: Path, what: string, issues: IssueList): string | null {
  const id = str(value);
  if (!id) issues.add(path, `a span needs its ${what} (a non-empty string)`);
  else if (id.length > MAX_KEY_CHARS)
    issues.add(path, `is ${id.length} characters long; the limit is ${MAX_KEY_CHARS}`);
  else return id;
  return null;
}

/** One Phoenix span as an OTLP span, or null with each problem an issue at its path. */
export function phoenixSpan(value: unknown, path: Path, issues: IssueList): OtlpSpan | null {
  if (!isObject(value)) {
    issues.add(path, "a span must be an object");
    return null;
  }
  const before = issues.length;
  const context = isObject(value.context) ? value.context : {};
  const traceId = idAt(context.trace_id, [...path, "context", "trace_id"], "trace id", issues);
  const spanId = idAt(context.span_id, [...path, "context", "span_id"], "span id", issues);
  const start = phoenixNanos(value.start_time);
  if (!start) issues.add([...path, "start_time"], "must be an ISO 8601 date-time");
  const open = value.end_time === undefined || value.end_time === null;
  const end = open ? null : phoenixNanos(value.end_time);
  if (!open && !end) issues.add([...path, "end_time"], "must be null or an ISO 8601 date-time");
  const parent = value.parent_id === undefined || value.parent_id === null ? null : str(value.parent_id);
  if (parent !== null && parent.length > MAX_KEY_CHARS) issues.add([...path, "parent_id"], "is too long");
  if (value.attributes !== undefined && value.attributes !== null && !isObject(value.attributes))
    issues.add([...path, "attributes"], "must be an object of attributes");
  const attributes = isObject(value.attributes) ? flattenAttributes(value.attributes) : {};
  if (attributes === false) issues.add([...path, "attributes"], `nested more than ${MAX_ATTRIBUTE_DEPTH} levels deep`);
  const events = eventsOf(value.events, [...path, "events"], issues);
  if (issues.length > before || !traceId || !spanId || !start || attributes === false) return null;
  const kind = str(value.span_kind);
  if (kind && attributes["openinference.span.kind"] === undefined) setOwn(attributes, "openinference.span.kind", kind);
  const code = typeof value.status_code === "string" ? (STATUS[value.status_code.toUpperCase()] ?? 0) : 0;
  return {
    traceId,
    spanId,
    parentSpanId: parent,
    name: str(value.name) ?? "",
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes,
    events,
    status: { code, message: str(value.status_message) ?? "" },
    resource: {},
    scope: { name: "phoenix", version: null },
    path: formatPath(path),
  };
}
