import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/db/errors";
import { env } from "@/lib/env";
import { IMPORT_RETRY_AFTER_SECONDS, withImportSlot } from "./heavy";
import protobuf from "protobufjs/light.js";
import { decodeOtlpJson, decodeOtlpProtobuf, gunzipIfNeeded, type OtlpSpan } from "@/lib/ingest/otlp";
import { decodeOtlpLogsJson, decodeOtlpLogsProtobuf, genAiLogEvents, type SpanLogEvent } from "@/lib/ingest/otlp/logs";
import { exportLogsServiceResponseType } from "@/lib/ingest/otlp/proto";
import type { ImportIssue } from "@/lib/ingest/types";
import type { Db } from "@/lib/db";
import type { Principal } from "@/lib/server/principal";
import { AppError } from "@/lib/errors";
import { readBodyBytes, toAppError } from "./api";

// ---------------------------------------------------------------------------
// The OTLP/HTTP side of /v1/traces and /v1/logs: content types and answers as the
// OTLP/HTTP specification asks. A success is an ExportTraceServiceResponse in
// the request's encoding (`{}` in JSON, an empty message in protobuf); a
// failure is a google.rpc.Status in the request's encoding (JSON for anything
// that is not protobuf), its problems as a google.rpc.BadRequest detail with
// one field violation per problem at its exact path.
// ---------------------------------------------------------------------------

export type OtlpEncoding = "json" | "protobuf";

/** The encoding a Content-Type names, or null when it is neither OTLP encoding. */
export function otlpEncodingOf(contentType: string | null): OtlpEncoding | null {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  return null;
}

/** The body, within BRANCHPOINT_MAX_BODY_BYTES, after checking the Content-Encoding is one we read. */
export async function readTraceBody(request: Request): Promise<{ bytes: Uint8Array; contentEncoding: string | null }> {
  const contentEncoding = request.headers.get("content-encoding");
  const codings = (contentEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && s !== "identity");
  if (codings.some((c) => c !== "gzip")) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Encoding '${contentEncoding}' is not supported: send gzip or no encoding.`,
    );
  }
  return { bytes: await readBodyBytes(request), contentEncoding };
}

// --- google.rpc.Status ---------------------------------------------------------

const statusRoot = protobuf.Root.fromJSON({
  nested: {
    Status: {
      fields: {
        code: { type: "int32", id: 1 },
        message: { type: "string", id: 2 },
        details: { rule: "repeated", type: "Any", id: 3 },
      },
    },
    Any: { fields: { type_url: { type: "string", id: 1 }, value: { type: "bytes", id: 2 } } },
    BadRequest: { fields: { field_violations: { rule: "repeated", type: "FieldViolation", id: 1 } } },
    FieldViolation: { fields: { field: { type: "string", id: 1 }, description: { type: "string", id: 2 } } },
  },
});
const StatusType = statusRoot.lookupType("Status");
const BadRequestType = statusRoot.lookupType("BadRequest");
const BAD_REQUEST_URL = "type.googleapis.com/google.rpc.BadRequest";

/** gRPC status codes for the HTTP statuses we answer with. */
function grpcCode(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 413 || status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status === 500) return 13; // INTERNAL
  return 3; // INVALID_ARGUMENT
}

export function otlpErrorResponse(
  status: number,
  message: string,
  issues: readonly ImportIssue[],
  encoding: OtlpEncoding,
): Response {
  const violations = issues.map((i) => ({ field: i.path, description: i.message }));
  // OTLP exporters retry 429 and 503, after Retry-After when it is given.
  const retry: Record<string, string> =
    status === 503
      ? { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) }
      : status === 429
        ? { "retry-after": String(IMPORT_RETRY_AFTER_SECONDS) }
        : {};
  if (encoding === "protobuf") {
    const details =
      violations.length > 0
        ? [
            {
              type_url: BAD_REQUEST_URL,
              value: BadRequestType.encode(BadRequestType.create({ field_violations: violations })).finish(),
            },
          ]
        : [];
    const body = StatusType.encode(StatusType.create({ code: grpcCode(status), message, details })).finish();
    return new Response(body as Uint8Array<ArrayBuffer>, {
      status,
      headers: { "content-type": "application/x-protobuf", ...retry },
    });
  }
  return Response.json(
    {
      code: grpcCode(status),
      message,
      details: violations.length > 0 ? [{ "@type": BAD_REQUEST_URL, fieldViolations: violations }] : [],
    },
    { status, headers: retry },
  );
}

/** An ExportTraceServiceResponse: everything accepted. */
export function otlpSuccessResponse(encoding: OtlpEncoding): Response {
  if (encoding === "protobuf") {
    return new Response(new Uint8Array(0), { status: 200, headers: { "content-type": "application/x-protobuf" } });
  }
  return Response.json({}, { status: 200 });
}

/**
 * The encoding of a trace export's request, from its Content-Type: 415 for anything that is not an OTLP
 * encoding (checked after the key, before the body is read).
 */
export function otlpEncoding(request: Request): OtlpEncoding {
  const encoding = otlpEncodingOf(request.headers.get("content-type"));
  if (encoding === null) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type '${request.headers.get("content-type") ?? ""}' is not an OTLP encoding: send application/json or application/x-protobuf.`,
    );
  }
  return encoding;
}

/**
 * A `/v1/traces` failure as OTLP answers it: a google.rpc.Status in the request's encoding (JSON for anything
 * that is not protobuf). Unexpected errors are logged and answered with a generic 500.
 */
export function otlpAnswerError(error: unknown, request: Request): Response {
  const encoding = otlpEncodingOf(request.headers.get("content-type")) ?? "json";
  const known = toAppError(error, new URL(request.url).pathname.startsWith("/v1/logs") ? "/v1/logs" : "/v1/traces");
  if (known.code === "internal_error")
    return otlpErrorResponse(500, "Something went wrong on the server; the export was not stored.", [], encoding);
  return otlpErrorResponse(known.status, known.message, known.issues, encoding);
}

/**
 * Stores what an export holds through `ingest`, given the import format the request's encoding names, in the import
 * slot; a refusal is a 400 whose message lists the issues after `intro`.
 */
async function storeOtlpExport(
  encoding: OtlpEncoding,
  intro: string,
  ingest: (format: "otlp-json" | "otlp-protobuf") => Promise<{ ok: true } | { ok: false; issues: ImportIssue[] }>,
): Promise<void> {
  const format = encoding === "json" ? "otlp-json" : "otlp-protobuf";
  const result = await withImportSlot(() => ingest(format));
  if (!result.ok) throw new AppError("invalid_input", describeIssues(intro, result.issues), result.issues);
}

/** How one OTLP signal's export (traces, logs) is read, stored and answered. */
export interface OtlpExport<D> {
  /** The body as the signal's records; throws the 400 or 413 of a bad export. */
  decode: (bytes: Uint8Array, contentEncoding: string | null, encoding: OtlpEncoding) => D;
  /** Whether the export holds anything to store (an empty one is answered without opening the import slot). */
  holdsRecords: (decoded: D) => boolean;
  /** Heads the issues of an export the store refuses. */
  intro: string;
  ingest: (
    decoded: D,
    format: "otlp-json" | "otlp-protobuf",
    ctx: { principal: Principal; prisma: Db },
  ) => Promise<{ ok: true } | { ok: false; issues: ImportIssue[] }>;
  /** The success answer, in the request's encoding. */
  respond: (encoding: OtlpEncoding, decoded: D) => Response;
}

/**
 * The handler of an OTLP/HTTP export route: the request's encoding (415 for another), its body decoded, what it
 * holds stored in the import slot, then the signal's answer.
 */
export function otlpExportHandler<D>(signal: OtlpExport<D>) {
  return async ({ request, prisma, principal }: { request: Request; prisma: Db; principal: Principal }) => {
    const encoding = otlpEncoding(request);
    const { bytes, contentEncoding } = await readTraceBody(request);
    const decoded = signal.decode(bytes, contentEncoding, encoding);
    if (signal.holdsRecords(decoded))
      await storeOtlpExport(encoding, signal.intro, (format) => signal.ingest(decoded, format, { principal, prisma }));
    return signal.respond(encoding, decoded);
  };
}

// --- Decoding an export ----------------------------------------------------------

/** Problems as one line for a client's log: the first few with their paths. */
export function describeIssues(intro: string, issues: readonly ImportIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : "";
  return `${intro}: ${shown.join("; ")}${more}`;
}

/** A request body gunzipped (when its Content-Encoding says so), within BRANCHPOINT_MAX_INFLATED_BYTES. */
function inflate(bytes: Uint8Array, contentEncoding: string | null): Uint8Array {
  const inflated = gunzipIfNeeded(bytes, contentEncoding, env().BRANCHPOINT_MAX_INFLATED_BYTES);
  if (!inflated.ok && inflated.tooLarge)
    throw new AppError(
      "payload_too_large",
      `${describeIssues("The body could not be read", [inflated.issue])} (BRANCHPOINT_MAX_INFLATED_BYTES).`,
      [inflated.issue],
    );
  if (!inflated.ok)
    throw new AppError("invalid_input", describeIssues("The body could not be read", [inflated.issue]), [
      inflated.issue,
    ]);
  return inflated.bytes;
}

/** A request body (gunzipped if needed) as spans; 400 with every problem's path when it is not a valid export. */
export function decodeTraceExport(
  bytes: Uint8Array,
  contentEncoding: string | null,
  encoding: OtlpEncoding,
): OtlpSpan[] {
  const limits = env();
  const inflated = inflate(bytes, contentEncoding);
  const decoded = encoding === "json" ? decodeOtlpJson(inflated) : decodeOtlpProtobuf(inflated);
  if (!decoded.ok) {
    const intro =
      encoding === "json"
        ? "The body is not a valid OTLP JSON trace export"
        : "The body is not a valid OTLP protobuf trace export";
    throw new AppError("invalid_input", describeIssues(intro, decoded.issues), decoded.issues);
  }
  if (decoded.spans.length > limits.BRANCHPOINT_MAX_SPANS)
    throw new AppError(
      "payload_too_large",
      `The export has ${decoded.spans.length} spans; the limit is ${limits.BRANCHPOINT_MAX_SPANS} per request (BRANCHPOINT_MAX_SPANS). Send smaller batches.`,
    );
  return decoded.spans;
}

/**
 * A logs export's body (gunzipped if needed) as its GenAI events, each with the span it names, and how many name
 * no span; 400 with every problem's path when it is not a valid export or an event's content cannot be read.
 */
export function decodeLogsExport(
  bytes: Uint8Array,
  contentEncoding: string | null,
  encoding: OtlpEncoding,
): { events: SpanLogEvent[]; unattached: number } {
  const limits = env();
  const inflated = inflate(bytes, contentEncoding);
  const decoded = encoding === "json" ? decodeOtlpLogsJson(inflated) : decodeOtlpLogsProtobuf(inflated);
  if (!decoded.ok) {
    const intro = `The body is not a valid OTLP ${encoding === "json" ? "JSON" : "protobuf"} logs export`;
    throw new AppError("invalid_input", describeIssues(intro, decoded.issues), decoded.issues);
  }
  if (decoded.records.length > limits.BRANCHPOINT_MAX_SPANS)
    throw new AppError(
      "payload_too_large",
      `The export has ${decoded.records.length} log records; the limit is ${limits.BRANCHPOINT_MAX_SPANS} per request (BRANCHPOINT_MAX_SPANS). Send smaller batches.`,
    );
  const read = genAiLogEvents(decoded.records);
  if (!read.ok)
    throw new AppError("invalid_input", describeIssues("Some GenAI events cannot be read", read.issues), read.issues);
  return { events: read.events, unattached: read.unattached };
}

/**
 * An ExportLogsServiceResponse: everything accepted, or a partial success naming the GenAI events that were
 * dropped because they name no span.
 */
export function otlpLogsResponse(encoding: OtlpEncoding, unattached: number): Response {
  if (unattached === 0) return otlpSuccessResponse(encoding);
  const errorMessage = `${unattached} GenAI event${unattached === 1 ? "" : "s"} named no trace and span id and ${unattached === 1 ? "was" : "were"} dropped: send them from inside the span they belong to.`;
  if (encoding === "protobuf") {
    const type = exportLogsServiceResponseType();
    const body = type
      .encode(type.create({ partialSuccess: { rejectedLogRecords: unattached, errorMessage } }))
      .finish();
    return new Response(body as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: { "content-type": "application/x-protobuf" },
    });
  }
  return Response.json({ partialSuccess: { rejectedLogRecords: String(unattached), errorMessage } }, { status: 200 });
}
