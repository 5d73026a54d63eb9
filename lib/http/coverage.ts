import { coverageCsv, type Coverage } from "@/lib/replay";

/** Coverage as a CSV file download. */
export function coverageCsvResponse(coverage: Coverage, fileStem: string): Response {
  const safe = fileStem.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80);
  return new Response(coverageCsv(coverage), {
    status: 200,
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="coverage-${safe}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
