import { withImportSlot } from "@/lib/http/heavy";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { apiRoute, readBodyBytes, readQuery } from "@/lib/http/api";
import { describeIssues } from "@/lib/http/otlp";
import { presentListItem } from "@/lib/http/present";
import { ImportFormat } from "@/lib/ingest/types";
import { importSessions, ListSessionsInput, listSessions } from "@/lib/server/sessions/sessions";

export const dynamic = "force-dynamic";

/** Content types a document may come as: JSON, JSON Lines, protobuf (OTLP), or untyped bytes. */
const DOCUMENT_TYPES =
  /^(application\/(json|x-ndjson|jsonl|x-jsonlines|x-protobuf|protobuf|octet-stream)|text\/plain)$/i;

const ImportQuery = z.object({ format: ImportFormat.optional(), filename: z.string().max(300).optional() });

/** Import one document of any supported format: 201 `{ sessions: [{ id, eventCount, duplicate? }] }`. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const query = readQuery(request, ImportQuery);
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (contentType && !DOCUMENT_TYPES.test(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type '${contentType}' is not accepted: send application/json, JSON Lines, or application/x-protobuf.`,
    );
  }
  const body = await readBodyBytes(request);
  if (body.length === 0) throw new AppError("invalid_input", "The body is empty: send one document.");
  const result = await withImportSlot(() => importSessions(principal, { body, ...query }, prisma));
  if (!result.ok) {
    const code = result.format === null ? "unknown_format" : "invalid_input";
    // A document that could not be read says why (malformed JSON and where, not protobuf); its issues follow in `issues`.
    if (result.format === null && result.summary) throw new AppError(code, result.summary, result.issues);
    const intro =
      result.format === null
        ? "The document is in no supported format"
        : `The document is not a valid ${result.format} document`;
    throw new AppError(code, describeIssues(intro, result.issues), result.issues);
  }
  return Response.json(
    {
      format: result.format,
      sessions: result.sessions.map((s) => ({
        id: s.id,
        eventCount: s.eventCount,
        ...(s.duplicate ? { duplicate: true } : {}),
      })),
    },
    { status: 201 },
  );
});

/** Sessions, newest first: `{ sessions, nextCursor }`. */
export const GET = apiRoute(async ({ request, prisma, principal }) => {
  const { sessions, nextCursor } = await listSessions(principal, readQuery(request, ListSessionsInput), prisma);
  return Response.json({ sessions: sessions.map(presentListItem), nextCursor });
});
