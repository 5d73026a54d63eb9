import { decodeLogsExport, otlpAnswerError, otlpExportHandler, otlpLogsResponse } from "@/lib/http/otlp";
import { route } from "@/lib/http/route";
import { ingestOtlpLogs } from "@/lib/server/sessions/sessions";

/**
 * OTLP/HTTP log export, as SDK log exporters send it: JSON or protobuf, gzipped or not, with the same key, limits
 * and answers as /v1/traces. The GenAI conventions' events among its records (`gen_ai.user.message`,
 * `gen_ai.choice`, `gen_ai.client.inference.operation.details`, …) are kept by the span each names and read as
 * that span's events, whether the span came before or comes after; other records are not kept.
 */
export const POST = route(
  { accept: ["trace_key"], authorize: "sessions.import", answerError: otlpAnswerError },
  otlpExportHandler({
    decode: decodeLogsExport,
    holdsRecords: ({ events }) => events.length > 0,
    intro: "Some spans cannot take these events",
    ingest: ({ events }, format, { principal, prisma }) => ingestOtlpLogs(principal, { events, format }, prisma),
    respond: (encoding, { unattached }) => otlpLogsResponse(encoding, unattached),
  }),
);
