import { withImportSlot } from "@/lib/http/heavy";
import { z } from "zod";
import { AppError, errorBody } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { progressAnswer, spoolImport, withSpooledImport, type SpooledBody } from "@/lib/http/spool";
import type { ImportedDocumentResult } from "@/lib/server/ingest/imports";
import { ImportFormat } from "@/lib/ingest/types";
import { importSessions } from "@/lib/server/sessions/sessions";

export const dynamic = "force-dynamic";

const Query = z.object({ filename: z.string().max(300).optional(), format: ImportFormat.optional() });

/**
 * The upload page's endpoint (XHR, for upload progress). It takes no API key:
 * the signed-in user's session, as the page that uses it. It refuses cross-site requests: the browser
 * must say the request is same-origin (Sec-Fetch-Site / Origin), and must send
 * the `X-Branchpoint-Upload` header, which a cross-site form cannot set
 * without a CORS preflight this server never grants. Scripts use
 * `POST /api/v1/sessions` with a key instead.
 *
 * With `Accept: application/x-ndjson` the answer, once the file has arrived (a body over the limit is still a
 * 413), is 200 and a line per window written, `{"progress":{"events":N}}`, then the result as the last line with
 * the status it would have had: `{"status":201,"format",…,"sessions"}` or `{"status":400,"error",…}`.
 */
export const POST = route(
  { accept: ["session"], query: Query, outsideProxy: true },
  async ({ request, query, principal, prisma }) => {
    assertSameOrigin(request);
    const run = async (body: SpooledBody, onProgress?: (p: { events: number }) => void) => {
      if (body.size === 0) throw new AppError("invalid_input", "The file is empty.");
      const result = await withImportSlot(() =>
        importSessions(principal, { source: body, ...query, ...(onProgress ? { onProgress } : {}) }, prisma),
      );
      return answer(result);
    };
    if (!/application\/x-ndjson/i.test(request.headers.get("accept") ?? "")) {
      const { status, json } = await withSpooledImport(request, (body) => run(body));
      return Response.json(json, { status });
    }
    // Spooled first, so a file over the limit is still a 413; the import's progress then streams.
    const body = await spoolImport(request);
    return progressAnswer(
      (onProgress) => run(body, onProgress),
      () => body.dispose(),
    );
  },
);

/** The import's answer: 201 with the sessions, or 400 saying why nothing was imported. */
function answer(result: ImportedDocumentResult): { status: number; json: Record<string, unknown> } {
  if (!result.ok) {
    // A file that could not be read says why (malformed JSON and where, not protobuf) before "no supported format".
    const message =
      result.format !== null
        ? `The file is not a valid ${result.format} document.`
        : (result.summary ?? "The file is in no supported format.");
    return {
      status: 400,
      json: {
        ...errorBody(result.format === null ? "unknown_format" : "invalid_input", message, result.issues),
        format: result.format,
      },
    };
  }
  return { status: 201, json: { format: result.format, sessions: result.sessions } };
}

function assertSameOrigin(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const host = request.headers.get("host");
  const sameOrigin = site === null || site === "same-origin";
  const originOk = origin === null || (host !== null && URL.canParse(origin) && new URL(origin).host === host);
  if (request.headers.get("x-branchpoint-upload") !== "1" || !sameOrigin || !originOk) {
    throw new AppError(
      "forbidden",
      "Uploads are accepted from Branchpoint's own pages only; scripts use POST /api/v1/sessions with an API key.",
    );
  }
}
