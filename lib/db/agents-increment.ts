import type { SessionRow, StoredRow, WindowRead } from "@/lib/ingest/increment/types";
import type { SqlTx } from "./sql";
import { storedRow, type JsonRow } from "./trace-increment";

// ---------------------------------------------------------------------------
// The incremental Agents SDK ingest's SQL (the plan is lib/ingest/increment/agents.ts,
// run by lib/server/ingest): the window's rows and events by indexed queries, and the
// session row (its trace ids are rows of "SessionTrace": an export adds its own).
// ---------------------------------------------------------------------------

const PREFIX = "openai-agents:";
const FORMAT = "openai-agents";

/** Sets the window reads' columns of some rows, in one statement. */
export async function setColumns(
  sql: SqlTx,
  rows: readonly { id: string; startNs: string; lastNs: string; role: string }[],
): Promise<void> {
  await sql.query`
    UPDATE "TraceSpan" t SET "startNs" = x."startNs"::bigint, "lastNs" = x."lastNs"::bigint, role = x.role
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id text, "startNs" text, "lastNs" text, role text)
    WHERE t.id = x.id`;
}

/** The write adds a plan's trace ids as rows: a list left in the session's metadata that was not trusted goes first. */
export async function dropListedTraceIds(sql: SqlTx, sessionId: string): Promise<void> {
  await sql.query`
    UPDATE "Session" SET metadata = CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata - 'traceIds'
      ELSE '{}'::jsonb END WHERE id = ${sessionId}`;
}

/**
 * The stored rows of an Agents SDK request's traces (with their items: the window re-maps them), and the
 * sessions of every group the request reaches, in one round trip. A session row comes with its metadata
 * without the group's trace ids (kept as rows of "SessionTrace": an export names only the ones it adds, and
 * the write adds them as rows), and whether those rows are the list (`listed`: no value left under the
 * metadata's `traceIds`).
 */
export async function loadAgentsRequest(
  sql: SqlTx,
  traceIds: readonly string[],
  ownKeys: readonly string[],
): Promise<{ rows: StoredRow<unknown>[]; sessions: SessionRow[] }> {
  const [loaded] = await sql.query<[{ rows: string; sessions: string }]>`
    WITH r AS (SELECT * FROM "TraceSpan" WHERE "traceId" = ANY(${traceIds}::text[]))
    SELECT
      (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')
       FROM r)::text AS rows,
      (SELECT coalesce(json_agg(json_build_object('id', s.id, 'externalId', s."externalId", 'format', s.format,
        'metadata', CASE WHEN jsonb_typeof(s.metadata) = 'object' THEN s.metadata - 'traceIds' ELSE s.metadata END,
        'listed', NOT (jsonb_typeof(s.metadata) = 'object' AND s.metadata ? 'traceIds'),
        'traceState', s."traceState", 'eventCount', s."eventCount",
        'modelCallCount', s."modelCallCount", 'toolCallCount', s."toolCallCount", 'errorCount', s."errorCount",
        'inputTokens', s."inputTokens", 'outputTokens', s."outputTokens",
        -- The source's cost: a price table estimate is worked out again after the export (lib/db/prices.ts).
        'costUsd', CASE WHEN s."costSource" = 'price_table' THEN 0 ELSE s."costUsd" END,
        'agentId', s."agentId", 'agentVersionId', s."agentVersionId",
        'replays', (SELECT count(*)::int FROM "Replay" p WHERE p."sessionId" = s.id))), '[]')
       FROM "Session" s WHERE s.format = ${FORMAT} AND s."externalId" IN (
         SELECT unnest(${ownKeys}::text[]) UNION SELECT DISTINCT substr("groupKey", ${PREFIX.length + 1}) FROM r))::text AS sessions`;
  return {
    rows: (JSON.parse(loaded.rows) as JsonRow[]).map((r) => storedRow(r)),
    sessions: JSON.parse(loaded.sessions) as SessionRow[],
  };
}

/** What an Agents SDK window needs of the rest of its session, in one round trip. */
export async function readAgentsWindow<T>(
  sql: SqlTx,
  w: { sessionId: string; eventCount: number; c: bigint; window: readonly string[]; keys: readonly string[] },
): Promise<WindowRead<T>> {
  const cut = new Date(Number(w.c / 1_000_000n));
  // One plan per connection, made without the session's statistics (see "agents_increment_window").
  const [read] = await sql.query<[{ read: string }]>`
    SELECT "agents_increment_window"(${w.sessionId}::text, ${w.eventCount}::int, ${cut}::timestamptz, ${w.c}::bigint,
      ${[...w.window]}::text[], ${[...w.keys]}::text[]) AS read`;
  const parsed = JSON.parse(read.read) as Omit<WindowRead<T>, "lastModel"> & { lastModel: JsonRow[] };
  return { ...parsed, lastModel: parsed.lastModel.map((r) => storedRow<T>(r)) };
}

/** The rows of the session's other traces with a span ending at or after `c` (they join the window). */
export async function reachingRows<T>(
  sql: SqlTx,
  sessionId: string,
  c: bigint,
  window: readonly string[],
): Promise<StoredRow<T>[]> {
  const [{ rows }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "traceId" IN (
      SELECT DISTINCT "traceId" FROM "TraceSpan"
      WHERE "sessionId" = ${sessionId} AND "lastNs" >= ${c} AND NOT ("traceId" = ANY(${[...window]}::text[])))`;
  return (JSON.parse(rows) as JsonRow[]).map((r) => storedRow<T>(r));
}
