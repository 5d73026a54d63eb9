import { createHash } from "node:crypto";
import type { SpanLogEvent } from "@/lib/ingest/otlp/logs";
import type { DbClient } from "./client";
import { prismaSql, type SqlTx } from "./sql";

// ---------------------------------------------------------------------------
// GenAI events sent as OTLP log records (/v1/logs), kept by the span they
// name. Stored as JSON text (never jsonb: text a client sent may hold \u0000,
// which jsonb refuses), once per (trace, span, event).
// ---------------------------------------------------------------------------

const rowId = (e: SpanLogEvent, text: string) =>
  createHash("sha256").update(`${e.traceId}:${e.spanId}:${text}`).digest("hex");

/** Stores the events (those stored already are left as they are); how many were new. */
export async function insertTraceLogs(sql: SqlTx, events: readonly SpanLogEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const texts = events.map((e) => JSON.stringify(e.event));
  const rows = await sql.query<{ id: string }[]>`
    INSERT INTO "TraceLog" (id, "traceId", "spanId", event)
    SELECT id, "traceId", "spanId", event
    FROM unnest(${events.map((e, i) => rowId(e, texts[i]!))}::text[], ${events.map((e) => e.traceId)}::text[],
      ${events.map((e) => e.spanId)}::text[], ${texts}::text[]) WITH ORDINALITY AS x(id, "traceId", "spanId", event, n)
    ORDER BY n
    ON CONFLICT (id) DO NOTHING
    RETURNING id`;
  return rows.length;
}

/** The stored log events of the traces (their JSON text), in the order they arrived. */
export async function traceLogRows(
  sql: SqlTx,
  traceIds: Iterable<string>,
): Promise<{ traceId: string; spanId: string; event: string }[]> {
  const ids = [...new Set(traceIds)];
  if (ids.length === 0) return [];
  return sql.query<{ traceId: string; spanId: string; event: string }[]>`
    SELECT "traceId", "spanId", event FROM "TraceLog" WHERE "traceId" = ANY(${ids}::text[]) ORDER BY seq`;
}

/**
 * Deletes the log records received before `before`, `batch` at a time (by the receivedAt index); how many.
 * By then the span each names has taken them among its stored events, or never came.
 */
export async function pruneTraceLogs(client: DbClient, before: Date, batch = 1000): Promise<number> {
  const sql = prismaSql(client);
  let done = 0;
  for (;;) {
    const rows = await sql.query<{ id: string }[]>`
      DELETE FROM "TraceLog" WHERE id IN (
        SELECT id FROM "TraceLog" WHERE "receivedAt" < ${before}::timestamptz ORDER BY "receivedAt" LIMIT ${batch}::int)
      RETURNING id`;
    done += rows.length;
    if (rows.length < batch) return done;
  }
}

/** The stored OTLP spans of the traces: their row ids and ids. */
export async function storedSpanRows(
  sql: SqlTx,
  traceIds: Iterable<string>,
): Promise<{ id: string; traceId: string; spanId: string }[]> {
  const ids = [...new Set(traceIds)];
  if (ids.length === 0) return [];
  return sql.query<{ id: string; traceId: string; spanId: string }[]>`
    SELECT id, "traceId", "spanId" FROM "TraceSpan" WHERE "traceId" = ANY(${ids}::text[]) AND "groupKey" LIKE 'otlp:%'`;
}
