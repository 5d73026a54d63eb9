// OTLP/HTTP trace ingest: decode (JSON, protobuf; gzip apart) and map spans to sessions.
import type { BytesImporter, FormatOutcome, JsonImporter } from "../importer";
import type { JsonInput } from "../json";
import type { ImportIssue } from "../types";
import { isObject } from "./attributes";
import { decodeOtlpJsonValue, decodeOtlpProtobuf, type DecodeResult } from "./decode";
import { gunzipIfNeeded } from "./gzip";
import { mapOtlpSpans, type OtlpFormat } from "./map";

export { decodeOtlpJson, decodeOtlpJsonValue, decodeOtlpProtobuf } from "./decode";
export type { DecodeResult, OtlpAttributes, OtlpSpan, OtlpSpanEvent, OtlpStatus } from "./decode";
export { gunzipIfNeeded, MAX_INFLATED_BYTES } from "./gzip";
export { assemble } from "./assemble";
export { readSpan } from "./conventions";
export {
  addDigests,
  aggregateOf,
  asAggregate,
  bySpanId,
  digestOf,
  sessionFields,
  type SpanAggregate,
  type SpanDigest,
} from "./digest";
export { factsOf, stepsOf } from "./map";
export {
  dedupeSpans,
  groupSpans,
  mapOtlpSpans,
  mapSessionGroup,
  SESSION_ATTRIBUTES,
  sessionGroupKey,
  spanSessionId,
} from "./map";
export type { MapOptions, MapResult, OtlpFormat } from "./map";

function outcome(decoded: DecodeResult, format: OtlpFormat): FormatOutcome {
  if (!decoded.ok) return { ok: false, issues: decoded.issues };
  const mapped = mapOtlpSpans(decoded.spans, { format });
  return mapped.ok ? { ok: true, sessions: mapped.sessions } : { ok: false, issues: mapped.issues };
}

/** Registry entry: a saved OTLP JSON export (`{ "resourceSpans": [...] }`). */
export const otlpJsonImporter: JsonImporter = {
  format: "otlp-json",
  label: 'otlp-json (an OTLP/HTTP JSON trace export, { "resourceSpans": [...] })',
  accepts: "json",
  detect: (input: JsonInput) =>
    input.shape === "document" &&
    isObject(input.value) &&
    Array.isArray(input.value.resourceSpans ?? input.value.resource_spans),
  import: (input: JsonInput): FormatOutcome => {
    if (input.shape !== "document")
      return { ok: false, issues: [{ path: "", message: "expected one JSON document, not JSON Lines" }] };
    return outcome(decodeOtlpJsonValue(input.value), "otlp-json");
  },
};

/** Registry entry: a saved OTLP protobuf export (ExportTraceServiceRequest bytes, gzipped or not). */
export const otlpProtobufImporter: BytesImporter = {
  format: "otlp-protobuf",
  label: "otlp-protobuf (an OTLP/HTTP protobuf trace export, gzipped or not)",
  accepts: "bytes",
  detect: (bytes: Uint8Array) => {
    const inflated = gunzipIfNeeded(bytes);
    if (!inflated.ok || inflated.bytes.length === 0) return false;
    const decoded = decodeOtlpProtobuf(inflated.bytes);
    return decoded.ok && decoded.spans.length > 0;
  },
  import: (bytes: Uint8Array): FormatOutcome => {
    const inflated = gunzipIfNeeded(bytes);
    if (!inflated.ok) return { ok: false, issues: [inflated.issue] };
    return outcome(decodeOtlpProtobuf(inflated.bytes), "otlp-protobuf");
  },
  expected:
    "a valid OTLP protobuf export: expected the bytes of an OTLP ExportTraceServiceRequest (what an OTLP/HTTP trace exporter sends, gzipped or not)",
  fileName: /\.(pb|binpb|protobuf)(\.gz)?$/i,
  whyNot: (bytes: Uint8Array): ImportIssue[] => {
    const inflated = gunzipIfNeeded(bytes);
    if (!inflated.ok) return [inflated.issue];
    const decoded = decodeOtlpProtobuf(inflated.bytes);
    if (!decoded.ok) return decoded.issues;
    return [{ path: "", message: "the bytes decode as an ExportTraceServiceRequest with no spans" }];
  },
};
