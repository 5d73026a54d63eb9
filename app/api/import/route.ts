import { withImportSlot } from "@/lib/http/heavy";
import { z } from "zod";
import { db } from "@/lib/db";
import { AppError, errorBody } from "@/lib/errors";
import { errorResponse, readBodyBytes, readQuery } from "@/lib/http/api";
import { currentPrincipal } from "@/lib/http/principal";
import { ImportFormat } from "@/lib/ingest/types";
import { importSessions } from "@/lib/server/sessions/sessions";

export const dynamic = "force-dynamic";

const Query = z.object({ filename: z.string().max(300).optional(), format: ImportFormat.optional() });

/**
 * The upload page's endpoint (XHR, for upload progress). It takes no API key:
 * the dashboard itself has no login, so this route is exactly as open as the
 * page that uses it, and no more. It refuses cross-site requests: the browser
 * must say the request is same-origin (Sec-Fetch-Site / Origin), and must send
 * the `X-Branchpoint-Upload` header, which a cross-site form cannot set
 * without a CORS preflight this server never grants. Scripts use
 * `POST /api/v1/sessions` with a key instead.
 */
export async function POST(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
    const query = readQuery(request, Query);
    const body = await readBodyBytes(request);
    if (body.length === 0) throw new AppError("invalid_input", "The file is empty.");
    const principal = await currentPrincipal();
    const prisma = await db();
    const result = await withImportSlot(() => importSessions(principal, { body, ...query }, prisma));
    if (!result.ok) {
      // A file that could not be read says why (malformed JSON and where, not protobuf) before "no supported format".
      const message =
        result.format !== null
          ? `The file is not a valid ${result.format} document.`
          : (result.summary ?? "The file is in no supported format.");
      return Response.json(
        {
          ...errorBody(result.format === null ? "unknown_format" : "invalid_input", message, result.issues),
          format: result.format,
        },
        { status: 400 },
      );
    }
    return Response.json({ format: result.format, sessions: result.sessions }, { status: 201 });
  } catch (error) {
    return errorResponse(error);
  }
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
