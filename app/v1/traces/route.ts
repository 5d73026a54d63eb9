import { decodeTraceExport, otlpAnswerError, otlpExportHandler, otlpSuccessResponse } from "@/lib/http/otlp";
import { route } from "@/lib/http/route";
import { ingestOtlpSpans } from "@/lib/server/sessions/sessions";

/**
 * OTLP/HTTP trace export, as SDK exporters send it: JSON or protobuf, gzipped or not. Spans
 * are stored by span id and their sessions rebuilt from every stored span of
 * their group, in one transaction; a bad export writes nothing. The key first (401, and 403 for a key that
 * may not import), then the Content-Type (415); every failure is a google.rpc.Status in the request's encoding.
 */
export const POST = route(
  { accept: ["trace_key"], authorize: "sessions.import", answerError: otlpAnswerError },
  otlpExportHandler({
    decode: decodeTraceExport,
    holdsRecords: (spans) => spans.length > 0,
    intro: "Some spans have missing or mistyped attributes",
    ingest: (spans, format, { principal, prisma }) => ingestOtlpSpans(principal, { spans, format }, prisma),
    respond: (encoding) => otlpSuccessResponse(encoding),
  }),
);
