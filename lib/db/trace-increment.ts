import { gunzipSync } from "node:zlib";
import type {
  ColumnedRow,
  CreatedGroup,
  GroupPlan,
  NewSpanRow,
  RowReplacement,
  SessionRow,
  StoredRow,
  WindowRead,
} from "@/lib/ingest/increment/types";
import type { SqlTx } from "./sql";
import { eventRows, insertEventRows, newId, rowText } from "./event-rows";
import { ensureAgent, saveNewTraceSessions, searchTextFor, type SavedSession } from "./session-save";

// ---------------------------------------------------------------------------
// The incremental trace ingest's SQL (the plan is lib/ingest/increment, run
// by lib/server/ingest): the indexed reads a window's plan needs, never every
// span or event of a session, and the writes of a plan. Spans are stored as
// JSON bytes (`packed`; the database compresses them); rows come back as one
// JSON text per read (one round trip, far cheaper than a row per span through
// the client), each row's item unpacked when the plan first asks for it.
// ---------------------------------------------------------------------------

/** A stored span's JSON, without its place in the request it came in (`path`). */
function spanText(item: { path?: string }): string {
  const { path: _path, ...rest } = item;
  return JSON.stringify(rest);
}

/**
 * A stored span as its JSON's UTF-8 bytes. The database compresses the column as it does any large value
 * (TOAST); gzipping each span here cost a tenth of an export's time. Rows stored before are gzipped JSON,
 * which `spanJson` reads too.
 */
export function pack(item: { path?: string }): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(spanText(item), "utf8"));
}

/** A stored span's JSON text: `packed` as stored, or gunzipped when it was stored gzipped (its first bytes 1f 8b). */
export function spanJson(packed: Uint8Array): string {
  const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
}

export function unpack<T>(row: { payload: unknown; packed: Uint8Array | null }): T {
  if (row.packed) return { ...(JSON.parse(spanJson(row.packed)) as object), path: "" } as T;
  return row.payload as T;
}

/** A row as the JSON reads return it (its packed bytes as base64). */
export type JsonRow = {
  id: string;
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  digest?: unknown;
  packed: string | null;
  payload: unknown;
};

/** A row read as JSON, its item unpacked once, when first asked for. */
export function storedRow<T, R extends JsonRow = JsonRow>(
  r: R,
): StoredRow<T> & Omit<R, "packed" | "payload" | "digest"> {
  const { packed, payload, digest, ...rest } = r;
  let item: { value: T } | null = null;
  return {
    ...rest,
    digest: digest ?? null,
    item: () =>
      (item ??= {
        value: unpack<T>({ payload, packed: packed === null ? null : Buffer.from(packed, "base64") }),
      }).value,
  };
}

/** The items of some stored rows, by row id. */
export async function loadItems<T>(sql: SqlTx, ids: readonly string[]): Promise<Map<string, T>> {
  if (ids.length === 0) return new Map();
  // One row of JSON text: a row per span with its bytes through the client costs several times more.
  const [{ rows: text }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE id = ANY(${[...ids]}::text[])`;
  const rows = JSON.parse(text) as { id: string; packed: string | null; payload: unknown }[];
  return new Map(
    rows.map((r) => [
      r.id,
      unpack<T>({ payload: r.payload, packed: r.packed === null ? null : Buffer.from(r.packed, "base64") }),
    ]),
  );
}

/** Span rows in one statement per ~4 MB (JSON records: one parameter, not one per column). */
export async function insertSpanRows(sql: SqlTx, rows: readonly NewSpanRow[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await sql.query`
      INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", packed, digest, "startNs", "lastNs", role, "callIds")
      SELECT id, "groupKey", "traceId", "spanId", "sessionId", convert_to(span, 'UTF8'), digest, "startNs"::bigint,
        "lastNs"::bigint, role, coalesce("callIds", ARRAY[]::text[])
      FROM jsonb_to_recordset(${`[${batch.join(",")}]`}::jsonb) AS x(id text, "groupKey" text, "traceId" text,
        "spanId" text, "sessionId" text, span text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])
      ON CONFLICT ("groupKey", "traceId", "spanId") DO NOTHING`;
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const text = spanRecord(row);
    if (bytes + text.length > 4_000_000) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
}

/** A new span row as a JSON record for `jsonb_to_recordset`. */
function spanRecord(row: NewSpanRow): string {
  const columns = row.columns;
  return JSON.stringify({
    id: newId(),
    groupKey: row.groupKey,
    traceId: row.traceId,
    spanId: row.spanId,
    sessionId: row.sessionId,
    span: spanText(row.item),
    digest: row.digest,
    startNs: columns ? String(columns.startNs) : null,
    lastNs: columns ? String(columns.lastNs) : null,
    role: columns?.role ?? null,
    callIds: columns?.callIds ?? null,
  });
}

// --- The reads of a plan ---------------------------------------------------------

/** The rows of a set of traces, with their packed copies (what joins a window). */
export async function rowsOfTraces<T>(sql: SqlTx, traceIds: readonly string[]): Promise<StoredRow<T>[]> {
  const [{ rows }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'packed', encode(packed, 'base64'),
      'payload', payload)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "traceId" = ANY(${[...traceIds]}::text[])`;
  return (JSON.parse(rows) as JsonRow[]).map((r) => storedRow<T>(r));
}

/** Every row of a session with its read columns. */
export async function sessionRows<T>(sql: SqlTx, sessionId: string): Promise<ColumnedRow<T>[]> {
  const [{ rows: text }] = await sql.query<[{ rows: string }]>`
    SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload,
      'startNs', "startNs"::text, 'lastNs', "lastNs"::text, 'role', role)), '[]')::text AS rows
    FROM "TraceSpan" WHERE "sessionId" = ${sessionId}`;
  type Columned = JsonRow & { startNs: string | null; lastNs: string | null; role: string | null };
  return (JSON.parse(text) as Columned[]).map((r) => storedRow<T, Columned>(r));
}

/** The digests of every row of a session. */
export function sessionDigests(
  sql: SqlTx,
  sessionId: string,
): Promise<{ traceId: string; spanId: string; digest: unknown }[]> {
  return sql.query<{ traceId: string; spanId: string; digest: unknown }[]>`
    SELECT "traceId", "spanId", digest FROM "TraceSpan" WHERE "sessionId" = ${sessionId}`;
}

/** How many rows are stored under some group keys (prefixed), by the index that leads with the key. */
export async function keyedRows(sql: SqlTx, keys: readonly string[]): Promise<number> {
  const [{ n }] = await sql.query<[{ n: number }]>`
    SELECT count(*)::int AS n FROM "TraceSpan" WHERE "groupKey" = ANY(${[...keys]}::text[])`;
  return n;
}

/** The kind, name and status of a session's events before `from`. */
export function prefixEvents(
  sql: SqlTx,
  sessionId: string,
  from: number,
): Promise<{ kind: string; name: string; status: string }[]> {
  return sql.query<{ kind: string; name: string; status: string }[]>`
    SELECT kind, name, status FROM "Event" WHERE "sessionId" = ${sessionId} AND seq < ${from}::int`;
}

const OTLP_PREFIX = "otlp:";
const OTLP_FORMATS = ["otlp-json", "otlp-protobuf"];

/** A GenAI event stored for a span from an OTLP log export (see trace-logs.ts): its JSON text. */
export type TraceLogRow = { traceId: string; spanId: string; event: string };

/**
 * The stored rows of an OTLP request's traces (with their payloads: the window re-maps them), the
 * sessions of every group the request reaches and the log events stored for its traces (in the order they
 * arrived), in one round trip. Read once the request's trace locks are held: a log export of the same
 * traces takes them too, so no event is missed.
 */
export async function loadOtlpRequest(
  sql: SqlTx,
  traceIds: readonly string[],
  ownKeys: readonly string[],
): Promise<{ rows: StoredRow<unknown>[]; sessions: SessionRow[]; logs: TraceLogRow[] }> {
  // With the sessions whose cost is the price table's estimate: their source gave none (lib/db/prices.ts).
  const [{ loaded, estimated, logs }] = await sql.query<[{ loaded: string; estimated: string[]; logs: string }]>`
    SELECT l.loaded, ARRAY(
      SELECT s.id FROM "Session" s
      WHERE s.id IN (SELECT x->>'id' FROM json_array_elements(l.loaded::json->'sessions') x)
        AND s."costSource" = 'price_table') AS estimated,
      (SELECT coalesce(json_agg(json_build_object('traceId', "traceId", 'spanId', "spanId", 'event', event) ORDER BY seq), '[]')
       FROM "TraceLog" WHERE "traceId" = ANY(${traceIds}::text[]))::text AS logs
    FROM (SELECT "otlp_increment_load"(${traceIds}::text[], ${ownKeys}::text[], ${OTLP_FORMATS}::text[], ${OTLP_PREFIX.length}::int) AS loaded) l`;
  const parsed = JSON.parse(loaded) as { rows: JsonRow[]; sessions: SessionRow[] };
  return {
    rows: parsed.rows.map((r) => storedRow(r)),
    sessions: withSourceCosts(parsed.sessions, estimated),
    logs: JSON.parse(logs) as TraceLogRow[],
  };
}

/** What an OTLP window needs of the rest of its session, in one round trip (see "otlp_increment_window"). */
export async function readOtlpWindow<T>(
  sql: SqlTx,
  w: {
    sessionId: string;
    eventCount: number;
    c: bigint;
    window: readonly string[];
    ids: readonly string[];
    keys: readonly string[];
  },
): Promise<WindowRead<T>> {
  const floor = (w.c / 1_000_000n) * 1_000_000n;
  const cut = new Date(Number(w.c / 1_000_000n));
  const [read] = await sql.query<[{ read: string }]>`
    SELECT "otlp_increment_window"(${w.sessionId}::text, ${w.eventCount}::int, ${cut}::timestamptz, ${floor}::bigint,
      ${w.c}::bigint, ${[...w.window]}::text[], ${[...w.ids]}::text[], ${[...w.keys]}::text[]) AS read`;
  const parsed = JSON.parse(read.read) as Omit<WindowRead<T>, "lastModel"> & { lastModel: JsonRow[] };
  return { ...parsed, lastModel: parsed.lastModel.map((r) => storedRow<T>(r)) };
}

// --- The writes of a plan --------------------------------------------------------

/** A stored span row given a better copy of its span (its packed bytes, digest and read columns). */
export async function replaceRow(sql: SqlTx, r: RowReplacement): Promise<void> {
  const { digest, columns } = r;
  await sql.query`
    UPDATE "TraceSpan" SET payload = NULL, packed = ${Buffer.from(pack(r.item))}::bytea,
      digest = CASE WHEN ${digest !== null}::boolean THEN ${JSON.stringify(digest)}::jsonb ELSE digest END,
      "startNs" = CASE WHEN ${columns !== null}::boolean THEN ${columns ? String(columns.startNs) : null}::bigint ELSE "startNs" END,
      "lastNs" = CASE WHEN ${columns !== null}::boolean THEN ${columns ? String(columns.lastNs) : null}::bigint ELSE "lastNs" END,
      role = CASE WHEN ${columns !== null}::boolean THEN ${columns?.role ?? null}::text ELSE role END,
      "callIds" = CASE WHEN ${columns?.callIds !== undefined}::boolean THEN ${columns?.callIds ?? []}::text[] ELSE "callIds" END
    WHERE id = ${r.rowId}::text`;
}

/**
 * A group's writes in one statement: the session row, its events from the window on as a change (rows
 * whose content is the same stay, changed ones are updated in place, new ones inserted, those past the
 * new end deleted) and its new spans. The session's cost is left to be worked out after the export, from the
 * whole session (lib/db/prices.ts): an increment never carries a source's cost (it falls back to the full
 * rebuild when one appears), so a session without tokens has none at once.
 */
export async function writePlan<S>(sql: SqlTx, plan: GroupPlan<S>, spans: readonly NewSpanRow[]): Promise<void> {
  const s = plan.fields;
  const ids = plan.ensure
    ? await ensureAgent(sql, { ...s, events: plan.tail })
    : { agentId: plan.session.agentId, agentVersionId: plan.session.agentVersionId };
  const rows = eventRows(plan.session.id, plan.tail, plan.previousModel);
  const storedBySeq = new Map(plan.storedTail.map((r) => [r.seq, r]));
  const write = rows.filter((row) => {
    const before = storedBySeq.get(row.seq);
    return !before || rowText(before) !== rowText(row);
  });
  const events = `[${write.map((row) => JSON.stringify({ ...row, id: newId() })).join(",")}]`;
  const spanRows = `[${spans.map(spanRecord).join(",")}]`;
  const small = events.length + spanRows.length <= 4_000_000;
  if (!small) {
    // Too much for one statement (the embedded database aborts on huge ones): the same, in parts.
    await insertSpanRows(sql, spans);
    const stale = [
      ...write.flatMap((r) => storedBySeq.get(r.seq)?.id ?? []),
      ...plan.storedTail.filter((r) => r.seq >= plan.summary.eventCount).map((r) => r.id),
    ];
    if (stale.length > 0) await sql.query`DELETE FROM "Event" WHERE id = ANY(${stale}::text[])`;
    await insertEventRows(sql, write);
  }
  const startedAt = s.startedAt ? new Date(s.startedAt) : null;
  const endedAt = s.endedAt ? new Date(s.endedAt) : null;
  const durationMs = s.startedAt && s.endedAt ? Math.max(0, Date.parse(s.endedAt) - Date.parse(s.startedAt)) : null;
  const m = plan.summary;
  await sql.query`
    SELECT "otlp_increment_write"(${plan.session.id}::text, ${m.eventCount}::int, ${small}::boolean,
      ${small ? events : "[]"}::jsonb, ${small ? spanRows : "[]"}::jsonb, ${ids.agentId}::text,
      ${ids.agentVersionId}::text, ${s.title}::text, ${startedAt}::timestamptz, ${endedAt}::timestamptz,
      ${durationMs}::int, ${m.modelCallCount}::int, ${m.toolCallCount}::int, ${m.errorCount}::int,
      ${m.inputTokens}::int, ${m.outputTokens}::int, ${m.costUsd}::float8, ${m.toolNames}::text[], ${m.status}::text,
      ${searchTextFor({ ...s, events: plan.searchEvents })}::text, ${JSON.stringify(s.metadata)}::jsonb, ${JSON.stringify(plan.state)}::jsonb) AS n`;
}

/**
 * The groups a request starts: their sessions written as new (as the full rebuild writes a group's first
 * session), then their span rows, under the session each belongs to. The sessions written, in order.
 */
export async function writeCreated(
  sql: SqlTx,
  created: readonly CreatedGroup[],
): Promise<(SavedSession & { externalId: string })[]> {
  const withSession = created.flatMap((g) => (g.session ? [{ ...g, session: g.session }] : []));
  const saved = await saveNewTraceSessions(
    sql,
    withSession.map((g) => ({ session: g.session, traceState: g.state })),
  );
  const sessionOf = new Map(withSession.map((g, i) => [g.key, saved[i]!.id]));
  await insertSpanRows(
    sql,
    created.flatMap((g) => g.spans.map((span) => ({ ...span, sessionId: sessionOf.get(g.key) ?? null }))),
  );
  return withSession.map((g, i) => ({ ...saved[i]!, externalId: g.key }));
}

/**
 * The loaded sessions with the cost their source gave: 0 for those whose stored cost is the price table's
 * estimate, so that a window is still summed by difference (the estimate is worked out again after it).
 */
export function withSourceCosts(sessions: SessionRow[], estimated: readonly string[]): SessionRow[] {
  if (estimated.length === 0) return sessions;
  const set = new Set(estimated);
  return sessions.map((s) => (set.has(s.id) ? { ...s, costUsd: 0 } : s));
}
