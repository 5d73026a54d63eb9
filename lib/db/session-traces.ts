import type { DbClient } from "./client";
import type { SqlTx } from "./sql";

// ---------------------------------------------------------------------------
// A trace-ingested session's trace ids (its metadata's `traceIds`) are kept as
// rows of "SessionTrace", one per (session, trace), not in the metadata: an
// export then adds the ids it brings without reading or rewriting the list
// (see "otlp_increment_write"). Every read that shows the metadata puts the
// list back, sorted by code point, at the place the stored jsonb would have
// held it, so documents read exactly as when the list was stored.
// A stored metadata that still has a `traceIds` key (a value that was not a
// list of strings) is shown as stored.
// ---------------------------------------------------------------------------

/** The formats whose sessions keep their trace ids as rows. */
export const TRACE_FORMATS: readonly string[] = ["otlp-json", "otlp-protobuf", "openai-agents"];

const isIdList = (v: unknown): v is string[] => Array.isArray(v) && v.every((t) => typeof t === "string");

/** The metadata as stored and the trace ids kept beside it (null: the metadata is stored whole). */
export function splitTraceIds(
  format: string,
  metadata: Record<string, unknown>,
): { metadata: Record<string, unknown>; traceIds: string[] | null } {
  if (!TRACE_FORMATS.includes(format) || !isIdList(metadata.traceIds)) return { metadata, traceIds: null };
  const { traceIds, ...rest } = metadata;
  return { metadata: rest, traceIds };
}

/** A session's trace ids, rewritten whole (the full rebuild, which reads all of the session anyway). */
export async function replaceTraceIds(sql: SqlTx, sessionId: string, traceIds: readonly string[]): Promise<void> {
  await sql.query`
    DELETE FROM "SessionTrace" WHERE "sessionId" = ${sessionId}::text AND NOT ("traceId" = ANY(${[...traceIds]}::text[]))`;
  await sql.query`
    INSERT INTO "SessionTrace" ("sessionId", "traceId")
    SELECT ${sessionId}::text, t FROM unnest(${[...new Set(traceIds)]}::text[]) AS x(t) ON CONFLICT DO NOTHING`;
}

/**
 * Session rows with their metadata as a reader sees it: a trace-ingested session's trace ids put back in
 * the metadata already read (in one statement for all of them, reading only the lists). The database
 * merges them, so the keys come in the order the stored jsonb gives them.
 */
export async function withTraceIds<S extends { id: string; format: string; metadata: unknown }>(
  client: DbClient,
  sessions: readonly S[],
): Promise<S[]> {
  const listed = sessions.filter(
    (s) =>
      TRACE_FORMATS.includes(s.format) &&
      s.metadata !== null &&
      typeof s.metadata === "object" &&
      !Array.isArray(s.metadata) &&
      !("traceIds" in s.metadata),
  );
  if (listed.length === 0) return [...sessions];
  const rows = await client.$queryRaw<{ id: string; metadata: string }[]>`
    SELECT x.id, (x.metadata::jsonb || jsonb_build_object('traceIds', coalesce((
      SELECT jsonb_agg(t."traceId" ORDER BY t."traceId" COLLATE "C") FROM "SessionTrace" t WHERE t."sessionId" = x.id),
      '[]'::jsonb)))::text AS metadata
    FROM unnest(${listed.map((s) => s.id)}::text[], ${listed.map((s) => JSON.stringify(s.metadata))}::text[])
      AS x(id, metadata)`;
  const read = new Map(rows.map((r) => [r.id, JSON.parse(r.metadata) as unknown]));
  return sessions.map((s) => (read.has(s.id) ? { ...s, metadata: read.get(s.id) } : s));
}

/** One session as `withTraceIds` reads it. */
export async function withTraceIdsOf<S extends { id: string; format: string; metadata: unknown }>(
  client: DbClient,
  session: S | null,
): Promise<S | null> {
  return session ? (await withTraceIds(client, [session]))[0]! : null;
}
