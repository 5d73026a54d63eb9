import { z } from "zod";
import { listSessions } from "@/lib/db";
import { importAndSave } from "@/lib/db/imports";
import { ApiError, apiRoute, readBodyBytes, readQuery } from "@/lib/http/api";
import { describeIssues } from "@/lib/http/otlp";
import { ImportFormat } from "@/lib/ingest/types";
import { presentListItem } from "./present";

export const dynamic = "force-dynamic";

/** Content types a document may come as: JSON, JSON Lines, protobuf (OTLP), or untyped bytes. */
const DOCUMENT_TYPES =
  /^(application\/(json|x-ndjson|jsonl|x-jsonlines|x-protobuf|protobuf|octet-stream)|text\/plain)$/i;

const ImportQuery = z.object({ format: ImportFormat.optional(), filename: z.string().max(300).optional() });

/** Import one document of any supported format: 201 `{ sessions: [{ id, eventCount, duplicate? }] }`. */
export const POST = apiRoute("sessions.import", async ({ request, prisma }) => {
  const query = readQuery(request, ImportQuery);
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (contentType && !DOCUMENT_TYPES.test(contentType)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `Content-Type '${contentType}' is not accepted: send application/json, JSON Lines, or application/x-protobuf.`,
    );
  }
  const body = await readBodyBytes(request);
  if (body.length === 0) throw new ApiError(400, "empty_body", "The body is empty: send one document.");
  const result = await importAndSave(prisma, body, query);
  if (!result.ok) {
    const code = result.format === null ? "unknown_format" : "invalid_document";
    const intro =
      result.format === null
        ? "The document is in no supported format"
        : `The document is not a valid ${result.format} document`;
    throw new ApiError(400, code, describeIssues(intro, result.issues), result.issues);
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

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(64).optional(),
  agent: z.string().min(1).max(200).optional(),
  status: z.enum(["completed", "failed", "incomplete"]).optional(),
  tool: z.string().min(1).max(200).optional(),
  q: z.string().min(1).max(200).optional(),
});

/** Sessions, newest first: `{ sessions, nextCursor }`. */
export const GET = apiRoute("sessions.read", async ({ request, prisma }) => {
  const query = readQuery(request, ListQuery);
  const { sessions, nextCursor } = await listSessions(prisma, query);
  return Response.json({ sessions: sessions.map(presentListItem), nextCursor });
});
