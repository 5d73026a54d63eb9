/**
 * One imported session written in windows, as its events are read (an import read as a stream): the session's
 * row first, then each window of events as multi-row inserts (`insertEventRows`, jsonb_to_recordset), then the
 * row's figures. The caller runs it inside one transaction with everything else of the import, so a failure
 * at any window leaves nothing written. Memory: the window, and the latest model call's message hashes.
 */
import { failureSignature } from "@/lib/clusters/signature";
import type { ImportedSession } from "@/lib/ingest/types";
import { writeClusterAssignments } from "./clusters";
import { costUsageTracker } from "@/lib/prices/prices";
import { writeSessionCost } from "./prices";
import type { CompactInput, Step } from "@/lib/sessions/inputs";
import { callIdentity, type SessionEvent } from "@/lib/replay";
import { eventRow, insertEventRows, newId } from "./event-rows";
import { ensureAgent, searchTextFor, summaryAccumulator, type SavedSession } from "./session-save";
import type { Prisma } from "./generated/client";
import { replaceTraceIds, splitTraceIds } from "./session-traces";
import type { SqlTx } from "./sql";

/** A session without its events: what is known before they are read. */
export type SessionHead = Omit<ImportedSession, "events">;
type Event = Omit<SessionEvent, "cacheKey" | "occurrence">;

/** The session imported before under the same format and source id, if any (an import of it again writes nothing). */
export async function importedBefore(
  sql: SqlTx,
  format: SessionHead["format"],
  externalId: string | null,
): Promise<SavedSession | null> {
  if (!externalId) return null;
  const [existing] = await sql.query<{ id: string; eventCount: number }[]>`
    SELECT id, "eventCount" FROM "Session" WHERE format = ${format}::text AND "externalId" = ${externalId}::text`;
  return existing ? { id: existing.id, eventCount: existing.eventCount, duplicate: true } : null;
}

export type SessionStream = {
  id: string;
  /** Writes the next events, in seq order (one multi-row insert per ~4 MB). */
  write(events: readonly Event[]): Promise<void>;
  /** The session's fields known only at its end (title, tools called, metadata), and its figures. */
  finish(tail: Pick<SessionHead, "title" | "tools" | "metadata">): Promise<SavedSession>;
};

/**
 * Starts writing a session on `sql`, a transaction of plain statements (lib/db/sql.ts `sqlTransaction`): on
 * the driver's own transaction memory stays flat, where a Prisma interactive transaction kept every
 * statement's parameters until its end (4 MB statements: 90 MB held after 10 of them, 170 MB after 40).
 */
export async function beginSessionStream(
  sql: SqlTx,
  head: SessionHead,
  /** Each event's stored form, in order (lib/sessions/inputs.ts `inputCompactor()`, one per session). */
  compact: (step: Step) => CompactInput,
): Promise<SessionStream> {
  const { agentId, agentVersionId } = await ensureAgent(sql, { ...head, events: [] });
  const id = newId();
  const stored = splitTraceIds(head.format, head.metadata);
  // The figures are written by finish(); a transaction that is rolled back never shows the row.
  await sql.query`
    INSERT INTO "Session" (id, "agentId", "agentVersionId", "externalId", title, format, status, "startedAt",
      "endedAt", "eventCount", "modelCallCount", "toolCallCount", "errorCount", "toolNames", metadata)
    VALUES (${id}::text, ${agentId}::text, ${agentVersionId}::text, ${head.externalId}::text, ${head.title}::text,
      ${head.format}::text, 'incomplete', ${head.startedAt}::timestamptz, ${head.endedAt}::timestamptz, 0, 0, 0, 0,
      '{}'::text[], ${JSON.stringify(stored.metadata)}::jsonb)`;
  if (stored.traceIds) await replaceTraceIds(sql, id, stored.traceIds);
  const identify = callIdentity();
  const summary = summaryAccumulator();
  const usage = costUsageTracker();
  // What the search text needs of the events: the first user turn, the first model call, the answer.
  const marks: SessionEvent[] = [];
  let firstStart: string | null = head.startedAt;
  return {
    id,
    async write(events) {
      const rows: Prisma.EventCreateManyInput[] = [];
      for (const raw of events) {
        const event = identify(raw);
        summary.add(event);
        usage.add(event);
        firstStart ??= event.startedAt;
        if (
          (event.kind === "user_message" && !marks.some((m) => m.kind === "user_message")) ||
          (event.kind === "model_call" && !marks.some((m) => m.kind === "model_call"))
        )
          marks.push(event);
        if (event.kind === "final_output") {
          const at = marks.findIndex((m) => m.kind === "final_output");
          if (at >= 0) marks.splice(at, 1);
          marks.push(event);
        }
        rows.push(eventRow(id, event, compact(event)));
      }
      await insertEventRows(sql, rows);
    },
    async finish(tail) {
      const session: ImportedSession = { ...head, ...tail, events: marks };
      if (tail.tools.length > head.tools.length) await ensureAgent(sql, session);
      const f = summary.result(tail.metadata);
      const durationMs =
        firstStart && head.endedAt ? Math.max(0, Date.parse(head.endedAt) - Date.parse(firstStart)) : null;
      await sql.query`
        UPDATE "Session" SET status = ${f.status}::text, "eventCount" = ${f.eventCount}::int,
          "modelCallCount" = ${f.modelCallCount}::int, "toolCallCount" = ${f.toolCallCount}::int,
          "errorCount" = ${f.errorCount}::int, "inputTokens" = ${f.inputTokens}::int,
          "outputTokens" = ${f.outputTokens}::int, "costUsd" = ${f.costUsd}::float8, "toolNames" = ${f.toolNames}::text[],
          title = ${tail.title}::text, metadata = ${JSON.stringify(splitTraceIds(head.format, tail.metadata).metadata)}::jsonb,
          "searchText" = ${searchTextFor(session)}::text, "startedAt" = ${firstStart}::timestamptz,
          "durationMs" = ${durationMs}::int, outcome = ${f.outcome}::text, "outcomeReason" = ${f.outcomeReason}::text,
          "outcomeSeq" = ${f.outcomeSeq}::int
        WHERE id = ${id}::text`;
      // Its failure cluster, in the same transaction, as a session saved whole gets (session-save.ts).
      await writeClusterAssignments(
        sql,
        [
          {
            sessionId: id,
            agentId,
            agentVersionId,
            seenAt: firstStart ? new Date(firstStart) : new Date(),
            signature: failureSignature(f, summary.steps),
          },
        ],
        { fresh: true },
      );
      // The source's cost, else the price table's estimate (./prices.ts).
      await writeSessionCost(sql, id, usage.result());
      return { id, eventCount: f.eventCount };
    },
  };
}
