import { withImportSlot } from "@/lib/http/heavy";
import { ingestOtlpSpans } from "@/lib/db/traces";
import { ApiError } from "@/lib/http/errors";
import { decodeTraceExport, describeIssues, otlpRoute, otlpSuccessResponse, readTraceBody } from "@/lib/http/otlp";

/**
 * OTLP/HTTP trace export (DESIGN §8): JSON or protobuf, gzipped or not. Spans
 * are stored by span id and their sessions rebuilt from every stored span of
 * their group, in one transaction; a bad export writes nothing.
 */
export const POST = otlpRoute(async ({ request, prisma, encoding }) => {
  const { bytes, contentEncoding } = await readTraceBody(request);
  const spans = decodeTraceExport(bytes, contentEncoding, encoding);
  if (spans.length > 0) {
    const result = await withImportSlot(() =>
      ingestOtlpSpans(prisma, spans, encoding === "json" ? "otlp-json" : "otlp-protobuf"),
    );
    if (!result.ok) {
      throw new ApiError(
        400,
        "invalid_span_attributes",
        describeIssues("Some spans have missing or mistyped attributes", result.issues),
        result.issues,
      );
    }
  }
  return otlpSuccessResponse(encoding);
});
