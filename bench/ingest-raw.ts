/**
 * The raw baseline the ingest is measured against: the rows an ingest stored, read back and written
 * again under a copy of their session, as JSON records in statements of about 4 MB.
 */
import pg from "pg";
import type { TestDatabase } from "../lib/db/testing";
import type { DbClient } from "../lib/db/client";
import type { Prisma } from "../lib/db/generated/client";

/** One way to run a statement inside a transaction: through the ingest's client, or on the driver. */
type Exec = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * The rows of one ingested session written raw under copies of it, in 1 and in 100 transactions, each
 * transaction also updating the session row (as an export does): through the ingest's client and on the
 * driver itself (PGlite's own transaction), and in 10 on the driver. Milliseconds by "client-1", "client-100",
 * "driver-1", "driver-10", "driver-100"; this process's CPU milliseconds by the same names with ":cpu".
 */
export async function rawFloor(db: TestDatabase, name: string, tag: string): Promise<Map<string, number>> {
  const prisma = db.prisma;
  const stored = await prisma.session.findFirstOrThrow({
    where: { externalId: `session:${name}` },
    include: { events: { orderBy: { seq: "asc" } }, spans: { orderBy: [{ startNs: "asc" }, { spanId: "asc" }] } },
  });
  const out = new Map<string, number>();
  const eventSql = `
    INSERT INTO "Event" (id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest")
    SELECT md5(random()::text), $2, seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest"
    FROM jsonb_to_recordset($1::jsonb) AS x(seq int, kind text, name text,
      input jsonb, output jsonb, error jsonb, status text, "startedAt" timestamptz, "durationMs" int, "inputTokens" int,
      "outputTokens" int, "costUsd" float8, "parentSeq" int, "cacheKey" text, occurrence int, "inputPrefixSeq" int,
      "inputPrefixCount" int, "inputDigest" text)`;
  const spanSql = `
    INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", packed, digest, "startNs", "lastNs", role, "callIds")
    SELECT md5(random()::text), $3 || "groupKey", "traceId", "spanId", $2, decode(packed, 'base64'), digest,
      "startNs"::bigint, "lastNs"::bigint, role, "callIds"
    FROM jsonb_to_recordset($1::jsonb) AS x("groupKey" text, "traceId" text, "spanId" text, packed text, digest jsonb,
      "startNs" text, "lastNs" text, role text, "callIds" text[])`;
  const sessionSql = `UPDATE "Session" SET "eventCount" = $2, "searchText" = $3, metadata = $4::jsonb, "traceState" = $5::jsonb WHERE id = $1`;
  const events = stored.events.map(({ id: _id, sessionId: _sid, ...e }) => JSON.stringify(e));
  const spans = stored.spans.map((r) =>
    JSON.stringify({
      groupKey: r.groupKey,
      traceId: r.traceId,
      spanId: r.spanId,
      packed: r.packed ? Buffer.from(r.packed).toString("base64") : null,
      digest: r.digest,
      startNs: r.startNs === null ? null : String(r.startNs),
      lastNs: r.lastNs === null ? null : String(r.lastNs),
      role: r.role,
      callIds: r.callIds,
    }),
  );
  const metadata = JSON.stringify(stored.metadata);
  const traceState = JSON.stringify(stored.traceState);
  for (const via of ["client", "driver"] as const)
    for (const parts of via === "driver" ? [1, 10, 100] : [1, 100]) {
      const what = `${via}-${parts}`;
      const copy = await prisma.session.create({
        data: { ...sessionColumns(stored), externalId: `${tag}-${what}:${stored.id}` },
        select: { id: true },
      });
      const slice = (xs: string[], b: number) =>
        `[${xs.slice(Math.floor((b * xs.length) / parts), Math.floor(((b + 1) * xs.length) / parts)).join(",")}]`;
      const write = async (exec: Exec, b: number) => {
        await exec(spanSql, [slice(spans, b), copy.id, `${tag}-${what}:`]);
        await exec(eventSql, [slice(events, b), copy.id]);
        await exec(sessionSql, [
          copy.id,
          Math.floor(((b + 1) * events.length) / parts),
          stored.searchText,
          metadata,
          traceState,
        ]);
      };
      // The driver's own transaction: PGlite's, or one connection of the server's (as lib/db/sql.ts takes from its pool).
      const client = db.pglite ? null : new pg.Client(db.pgConfig!);
      await client?.connect();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      for (let b = 0; b < parts; b++) {
        if (via === "client")
          await prisma.$transaction((tx) => write((sql, params) => tx.$executeRawUnsafe(sql, ...params), b));
        else if (db.pglite) await db.pglite.transaction((tx) => write((sql, params) => tx.query(sql, params), b));
        else {
          await client!.query("BEGIN");
          await write((sql, params) => client!.query(sql, params), b);
          await client!.query("COMMIT");
        }
      }
      out.set(what, performance.now() - t0);
      out.set(`${what}:cpu`, cpuMsSince(c0));
      await client?.end();
    }
  return out;
}

/** This process's CPU time since `start`, in ms (with PGlite, the database's work runs in it too). */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

export type StoredSession = Prisma.SessionGetPayload<{ include: { events: true } }>;

type SpanRowCopy = {
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string;
  payload: unknown;
  packed: Uint8Array | null;
  digest: unknown;
  startNs: bigint | null;
  lastNs: bigint | null;
  role: string | null;
  callIds: string[];
};

/** TraceSpan rows as JSON records, about 4 MB a statement (as insertEventRows does for events). */
export async function insertSpanRows(tx: DbClient, rows: readonly SpanRowCopy[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await tx.$executeRaw`
      INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", payload, packed, digest, "startNs", "lastNs", role, "callIds")
      SELECT md5(random()::text), "groupKey", "traceId", "spanId", "sessionId", payload, decode(packed, 'base64'), digest,
        "startNs"::bigint, "lastNs"::bigint, role, "callIds"
      FROM jsonb_to_recordset(${`[${batch.join(",")}]`}::jsonb) AS x("groupKey" text, "traceId" text, "spanId" text,
        "sessionId" text, payload jsonb, packed text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])`;
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const text = JSON.stringify({
      ...row,
      packed: row.packed ? Buffer.from(row.packed).toString("base64") : null,
      startNs: row.startNs === null ? null : String(row.startNs),
      lastNs: row.lastNs === null ? null : String(row.lastNs),
    });
    if (bytes + text.length > 4_000_000) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
}

export function sessionColumns(s: StoredSession) {
  return {
    agentId: s.agentId,
    agentVersionId: s.agentVersionId,
    format: s.format,
    status: s.status,
    eventCount: s.eventCount,
    modelCallCount: s.modelCallCount,
    toolCallCount: s.toolCallCount,
    errorCount: s.errorCount,
    metadata: s.metadata as Prisma.InputJsonValue,
  };
}
