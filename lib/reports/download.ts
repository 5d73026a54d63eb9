import { exportFileName, reportToJson, reportToMarkdown, type ExportFormat, type ReportDocument } from "./export";

/** The export of a report as a file download (Markdown or JSON). */
export function exportResponse(
  report: ReportDocument,
  format: ExportFormat,
  extraHeaders: Record<string, string> = {},
): Response {
  const body = format === "md" ? reportToMarkdown(report) : reportToJson(report);
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": format === "md" ? "text/markdown; charset=utf-8" : "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportFileName(report, format)}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      ...extraHeaders,
    },
  });
}
