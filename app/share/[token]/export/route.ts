import { z } from "zod";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/db/errors";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { route } from "@/lib/http/route";
import { exportResponse } from "@/lib/reports/download";
import { EXPORT_FORMATS } from "@/lib/reports/export";
import { openSharedReport } from "@/lib/server/reports/reports";

export const dynamic = "force-dynamic";

const NOINDEX = {
  "X-Robots-Tag": "noindex, nofollow, noarchive",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/** An unknown format is the default one: a share link's visitor gets the report, not an error. */
const Query = z.object({ format: z.enum(EXPORT_FORMATS).catch("md") });

/** The same answer for every token that does not open a report. */
function notFound(): Response {
  return new Response("Not found\n", {
    status: 404,
    headers: { ...NOINDEX, "Content-Type": "text/plain; charset=utf-8" },
  });
}

/** A share link's visitor sees no error details: that the database is away (retry), or that something failed. */
function failed(error: unknown): Response {
  if (isDatabaseUnavailable(error)) {
    return new Response("The database is not reachable right now; try again in a few seconds.\n", {
      status: 503,
      headers: {
        ...NOINDEX,
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
      },
    });
  }
  console.error("Shared report export failed:", error);
  return new Response("Something went wrong\n", { status: 500, headers: NOINDEX });
}

/** GET /share/:token/export?format=md|json: the shared report's export; no other data. */
export const GET = route<{ token: string }, typeof Query>(
  { accept: ["share_token"], shareToken: ({ token }) => token, query: Query, answerError: failed },
  async ({ query: { format }, params: { token }, principal, prisma }) => {
    const report = await openSharedReport(principal, { token }, prisma);
    return report ? exportResponse(report, format, NOINDEX) : notFound();
  },
);
