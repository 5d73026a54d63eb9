/** Recorded sessions: import (documents and trace exports), list, read. */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { importAndSave, type ImportedDocumentResult } from "../ingest/imports";
import {
  countSessions,
  getSession as readSession,
  listSessions as readSessions,
  sessionEventRows,
  sessionFacets,
  sessionHead,
  sessionOutline,
  type SessionWithEvents,
} from "@/lib/db/session-reads";
import { ingestAgentsItems as storeAgentsItems, ingestOtlpSpans as storeOtlpSpans } from "../ingest/traces";
import { notFound } from "@/lib/errors";
import type { AgentsItem } from "@/lib/ingest/openai-agents-parse";
import type { OtlpSpan } from "@/lib/ingest/otlp";
import { ImportFormat } from "@/lib/ingest/types";
import { authorize } from "../authz";
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

/** Imports one document (all or nothing); a document that does not import comes back with its issues, nothing written. */
export async function importSessions(
  principal: Principal,
  input: ImportSessionsInput,
  prisma: Db,
): Promise<ImportedDocumentResult> {
  authorize(principal, "sessions.import");
  return importAndSave(prisma, input.body, {
    ...(input.format ? { format: input.format } : {}),
    ...(input.filename ? { filename: input.filename } : {}),
  });
}

/** Stores decoded OTLP spans and rebuilds their sessions, in one transaction. */
export async function ingestOtlpSpans(
  principal: Principal,
  input: { spans: OtlpSpan[]; format: "otlp-json" | "otlp-protobuf" },
  prisma: Db,
) {
  authorize(principal, "sessions.import");
  return storeOtlpSpans(prisma, input.spans, input.format);
}

/** Stores Agents SDK trace items and rebuilds their sessions, in one transaction. */
export async function ingestAgentsItems(principal: Principal, input: { items: AgentsItem[] }, prisma: Db) {
  authorize(principal, "sessions.import");
  return storeAgentsItems(prisma, input.items);
}

export const ListSessionsInput = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(64).optional(),
  agent: z.string().min(1).max(200).optional(),
  status: z.enum(["completed", "failed", "incomplete"]).optional(),
  tool: z.string().min(1).max(200).optional(),
  q: z.string().min(1).max(200).optional(),
});
export type ListSessionsInput = z.infer<typeof ListSessionsInput>;

/** Sessions, newest first, with the filter menus' values and the total count. */
export async function listSessions(principal: Principal, input: ListSessionsInput, prisma: Db) {
  authorize(principal, "sessions.read");
  const [page, facets, total] = await Promise.all([
    readSessions(prisma, input),
    sessionFacets(prisma),
    countSessions(prisma),
  ]);
  return { ...page, facets, total };
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
