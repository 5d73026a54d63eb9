/** Recorded sessions: import (documents and trace exports), list, read. */
import { z } from "zod";
import type { Db } from "@/lib/db";
import type { ImportedDocumentResult } from "../ingest/imports";
import { countSessions, listSessions as readSessions } from "@/lib/db/session-list";
import { bytesSource, importStream, type ByteSource, type StreamImportOptions } from "../ingest/stream-import";
import { env } from "@/lib/env";
import {
  getSession as readSession,
  sessionEventRows,
  sessionFacets,
  sessionHead,
  sessionOutline,
  type SessionWithEvents,
} from "@/lib/db/session-reads";
import {
  ingestAgentsItems as storeAgentsItems,
  ingestOtlpLogs as storeOtlpLogs,
  ingestOtlpSpans as storeOtlpSpans,
} from "../ingest/traces";
import { notFound } from "@/lib/errors";
import type { AgentsItem } from "@/lib/ingest/openai-agents-parse";
import type { OtlpSpan } from "@/lib/ingest/otlp";
import type { SpanLogEvent } from "@/lib/ingest/otlp/logs";
import { ImportFormat } from "@/lib/ingest/types";
import { hasFilters, SessionListQuery } from "@/lib/session-list/query";
import { authorize } from "../authz";
import { afterImport } from "../checks/online";
import type { QueueDeps } from "../job-queue";
import type { Principal } from "../principal";

export const ImportSessionsInput = z.object({
  body: z.union([
    z.string(),
    z.custom<Uint8Array>((v) => v instanceof Uint8Array, "Send the document as text or bytes."),
  ]),
  format: ImportFormat.optional(),
  filename: z.string().max(300).optional(),
});
export type ImportSessionsInput = z.infer<typeof ImportSessionsInput>;

/**
 * Imports one document (all or nothing); a document that does not import comes back with its issues, nothing
 * written. Chat logs, native sessions, JSON Lines and arrays of sessions are read as a stream and written in windows (one
 * transaction); other shapes are imported whole, up to BRANCHPOINT_MAX_BODY_BYTES.
 */
export async function importSessions(
  principal: Principal,
  input: (ImportSessionsInput | (Omit<ImportSessionsInput, "body"> & { source: ByteSource })) & {
    onProgress?: StreamImportOptions["onProgress"];
  },
  prisma: Db,
  deps: QueueDeps = {},
): Promise<ImportedDocumentResult> {
  authorize(principal, "sessions.import");
  const result = await importStream(prisma, "source" in input ? input.source : bytesSource(input.body), {
    wholeLimit: env().BRANCHPOINT_MAX_BODY_BYTES,
    ...(input.format ? { format: input.format } : {}),
    ...(input.filename ? { filename: input.filename } : {}),
    ...(input.onProgress ? { onProgress: input.onProgress } : {}),
  });
  // Sessions new to the store are judged by the checks attached to their agents, in one job.
  if (result.ok)
    await afterImport(
      prisma,
      result.sessions.filter((s) => !s.duplicate).map((s) => s.id),
      deps,
    );
  return result;
}

/**
 * The import of a trace export, given how its source stores one (`store`): the principal may import, the export
 * is stored, and its stored sessions are queued to be judged by their agents' attached checks; a rebuilt session is
 * judged again only where its events changed (the verdict keeps the count it judged).
 */
function traceImport<I, R extends { ok: boolean; sessions?: { id: string }[] }>(
  store: (prisma: Db, input: I) => Promise<R>,
): (principal: Principal, input: I, prisma: Db) => Promise<R> {
  return async (principal, input, prisma) => {
    authorize(principal, "sessions.import");
    const result = await store(prisma, input);
    if (result.ok && result.sessions)
      await afterImport(
        prisma,
        result.sessions.map((s) => s.id),
      );
    return result;
  };
}

/** Stores decoded OTLP spans and rebuilds their sessions, in one transaction. */
export const ingestOtlpSpans = traceImport(
  (prisma, input: { spans: OtlpSpan[]; format: "otlp-json" | "otlp-protobuf" }) =>
    storeOtlpSpans(prisma, input.spans, input.format),
);

/**
 * Stores the GenAI events of an OTLP log export by the spans they name, in one transaction; the sessions of
 * those spans already stored are rebuilt with them.
 */
export const ingestOtlpLogs = traceImport(
  (prisma, input: { events: SpanLogEvent[]; format: "otlp-json" | "otlp-protobuf" }) =>
    storeOtlpLogs(prisma, input.events, input.format),
);

/** Stores Agents SDK trace items and rebuilds their sessions, in one transaction. */
export const ingestAgentsItems = traceImport((prisma, input: { items: AgentsItem[] }) =>
  storeAgentsItems(prisma, input.items),
);

/**
 * The list's query: filters, `sort` (`startedAt`, `costUsd`, `durationMs`, `errorCount`, `steps`,
 * `createdAt`; `-` first for descending), `limit` and `cursor` (lib/session-list/query.ts).
 */
export const ListSessionsInput = SessionListQuery;
export type ListSessionsInput = SessionListQuery;

/** One page of sessions in the order asked, with the filter menus' values, the total and how many match. */
export async function listSessions(principal: Principal, input: SessionListQuery, prisma: Db) {
  authorize(principal, "sessions.read");
  const filtered = hasFilters(input);
  const [page, facets, total, matching] = await Promise.all([
    readSessions(prisma, input),
    sessionFacets(prisma),
    countSessions(prisma),
    filtered ? countSessions(prisma, input) : null,
  ]);
  return { ...page, facets, total, matching: matching ?? total };
}

export const SessionRef = z.object({
  sessionId: z.string().min(1),
  /** "delta": each model call's input as stored (the messages it adds, after `inputPrefix`); "full" (default): whole. */
  inputs: z.enum(["full", "delta"]).optional(),
});
export type SessionRef = z.infer<typeof SessionRef>;

/** One session with its events in order. */
export async function getSession(principal: Principal, input: SessionRef, prisma: Db): Promise<SessionWithEvents> {
  authorize(principal, "sessions.read");
  const session = await readSession(prisma, input.sessionId, { inputs: input.inputs ?? "full" });
  if (!session) throw notFound("session", input.sessionId);
  return session;
}

/** One session without its events (its counts are stored with it): for pages that name it. */
export async function getSessionHead(principal: Principal, input: { sessionId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const head = await sessionHead(prisma, input.sessionId);
  if (!head) throw notFound("session", input.sessionId);
  return head;
}

/** One session's head and what each of its steps did (no inputs): for pages that list its steps by name. */
export async function getSessionOutline(principal: Principal, input: { sessionId: string }, prisma: Db) {
  const head = await getSessionHead(principal, input, prisma);
  return { ...head, events: await sessionOutline(prisma, input.sessionId) };
}

/**
 * One session to be sent whole: its head (read now: a missing session fails
 * here) and its event rows in stored form, read a window at a time as they
 * are consumed (see presentSessionJson).
 */
export async function openSession(principal: Principal, input: { sessionId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const head = await sessionHead(prisma, input.sessionId);
  if (!head) throw notFound("session", input.sessionId);
  return { head, rows: sessionEventRows(prisma, input.sessionId) };
}
