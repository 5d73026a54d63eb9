import { withImportSlot } from "@/lib/http/heavy";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { withSpooledImport } from "@/lib/http/spool";
import { route } from "@/lib/http/route";
import { describeIssues } from "@/lib/http/otlp";
import { presentListItem } from "@/lib/http/present";
import { ImportFormat } from "@/lib/ingest/types";
import { importSessions, ListSessionsInput, listSessions } from "@/lib/server/sessions/sessions";

export const dynamic = "force-dynamic";

/** Content types a document may come as: JSON, JSON Lines, protobuf (OTLP), or untyped bytes. */
const DOCUMENT_TYPES =
  /^(application\/(json|x-ndjson|jsonl|x-jsonlines|x-protobuf|protobuf|octet-stream)|text\/plain)$/i;

const ImportQuery = z.object({ format: ImportFormat.optional(), filename: z.string().max(300).optional() });

/**
 * Import one document of any supported format: 201 `{ sessions: [{ id, eventCount, duplicate? }] }`. The body
 * (up to BRANCHPOINT_MAX_IMPORT_BYTES) is spooled to a file and read as a stream (lib/server/ingest/stream-import.ts).
 */
export const POST = route(
  { accept: ["api_key"], query: ImportQuery, outsideProxy: true },
  async ({ request, query, prisma, principal }) => {
    const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (contentType && !DOCUMENT_TYPES.test(contentType)) {
      throw new AppError(
        "unsupported_media_type",
        `Content-Type '${contentType}' is not accepted: send application/json, JSON Lines, or application/x-protobuf.`,
      );
    }
    const result = await withSpooledImport(request, async (body) => {
      if (body.size === 0) throw new AppError("invalid_input", "The body is empty: send one document.");
      return withImportSlot(() => importSessions(principal, { source: body, ...query }, prisma));
    });
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
  },
);

/** Sessions, filtered and sorted as asked (newest imported first by default): `{ sessions, nextCursor }`. */
export const GET = route(
  { accept: ["api_key"], query: ListSessionsInput, outsideProxy: true },
  async ({ query, prisma, principal }) => {
    const { sessions, nextCursor } = await listSessions(principal, query, prisma);
    return Response.json({ sessions: sessions.map(presentListItem), nextCursor });
  },
);
