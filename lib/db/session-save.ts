import type { ImportedSession } from "@/lib/ingest/types";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import type { Db, DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { replaceTraceIds, splitTraceIds } from "./session-traces";
import { prismaSql, type SqlTx } from "./sql";
import { eventRows, insertEventRows, newId, replaceChangedEvents } from "./event-rows";
import { failureSignature, type FailureStep } from "@/lib/clusters/signature";
import { writeClusterAssignments, type ClusterAssignment } from "./clusters";
import { sessionOutcome } from "@/lib/sessions/outcome";
import { costUsage } from "@/lib/prices/prices";
import { writeSessionCost, writeSessionCosts } from "./prices";

export type SavedSession = { id: string; eventCount: number; duplicate?: true };

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return "";
  }
}

/** The text the session browser's search looks in: title, agent, the first user turn and the final answer. */
export function searchTextFor(s: ImportedSession): string {
  const firstUser = s.events.find((e) => e.kind === "user_message");
  const finalOutput = [...s.events].reverse().find((e) => e.kind === "final_output");
  const firstModel = s.events.find((e) => e.kind === "model_call");
  const firstUserInPrompt = (() => {
    const input = firstModel?.input as { messages?: { role: string; content: unknown }[] } | undefined;
    return input?.messages?.find((m) => m.role === "user")?.content;
  })();
  return [
    s.title,
    s.agent.name,
    s.externalId,
    textOf(firstUser?.output ?? firstUserInPrompt),
    textOf(finalOutput?.output),
  ]
    .filter(Boolean)
    .join("\n")
    .toLowerCase()
    .slice(0, 8000);
}

export function summarize(events: readonly SessionEvent[], metadata: unknown = {}) {
  const summary = summaryAccumulator();
  for (const e of events) summary.add(e);
  return summary.result(metadata);
}

/**
 * summarize, one event at a time (an import written in windows). It keeps what the outcome and the failure
 * signature read of each step (kind, name, status; the error of a failed one), not the step's content.
 */
export function summaryAccumulator() {
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  let eventCount = 0;
  let modelCallCount = 0;
  let toolCallCount = 0;
  let errorCount = 0;
  let incomplete = false;
  let last: Pick<SessionEvent, "kind" | "status"> | undefined;
  const toolNames = new Set<string>();
  const steps: FailureStep[] = [];
  return {
    /** What the outcome rule and the failure signature read of the steps added so far. */
    steps: steps as readonly FailureStep[],
    add(e: Pick<SessionEvent, "seq" | "kind" | "name" | "status" | "usage" | "error">) {
      inputTokens += e.usage?.inputTokens ?? 0;
      outputTokens += e.usage?.outputTokens ?? 0;
      costUsd += e.usage?.costUsd ?? 0;
      eventCount++;
      if (e.kind === "model_call") modelCallCount++;
      if (e.kind === "tool_call") {
        toolCallCount++;
        toolNames.add(e.name);
      }
      if (e.status === "failed") errorCount++;
      if (e.status === "incomplete") incomplete = true;
      steps.push({
        seq: e.seq,
        kind: e.kind,
        name: e.name,
        status: e.status,
        error: e.status === "failed" ? e.error : null,
      });
      last = e;
    },
    /** The session row's figures; `metadata` is the source's, which may carry its own verdict (the outcome). */
    result(metadata: unknown = {}) {
      const status = incomplete
        ? "incomplete"
        : last?.kind === "final_output" || (last !== undefined && last.status === "completed")
          ? "completed"
          : "failed";
      const outcome = sessionOutcome({
        metadata,
        events: steps.map((x) => ({ ...x, error: x.error as { type?: string; message?: string } | null })),
      });
      return {
        eventCount,
        modelCallCount,
        toolCallCount,
        errorCount,
        inputTokens,
        outputTokens,
        costUsd,
        toolNames: [...toolNames].sort(),
        status,
        outcome: outcome.outcome,
        outcomeReason: outcome.reason,
        outcomeSeq: outcome.seq,
      };
    },
  };
}

/**
 * The agent, version and tools of a session, created when new. Concurrent
 * first imports of one agent all succeed: each row is inserted with
 * `ON CONFLICT DO NOTHING` (createMany + skipDuplicates), which waits for a
 * racing transaction and then reads its row, where `upsert` (read, then
 * insert) let the loser fail with a unique violation (a 409 that OTLP
 * exporters do not retry, so their spans were lost).
 */
export async function ensureAgent(
  sql: SqlTx,
  s: ImportedSession,
): Promise<{ agentId: string; agentVersionId: string }> {
  await sql.query`
    INSERT INTO "Agent" (id, name, adapter) VALUES (${newId()}::text, ${s.agent.name}::text, ${s.agent.adapter}::text)
    ON CONFLICT (name) DO NOTHING`;
  const [agent] = await sql.query<[{ id: string }]>`SELECT id FROM "Agent" WHERE name = ${s.agent.name}::text`;
  await sql.query`
    INSERT INTO "AgentVersion" (id, "agentId", version, capabilities)
    VALUES (${newId()}::text, ${agent.id}::text, ${s.agentVersion.version}::text, ${s.agentVersion.capabilities}::text[])
    ON CONFLICT ("agentId", version) DO NOTHING`;
  const [version] = await sql.query<[{ id: string }]>`
    SELECT id FROM "AgentVersion" WHERE "agentId" = ${agent.id}::text AND version = ${s.agentVersion.version}::text`;
  const tools = toolsOf(s);
  if (tools.length > 0) {
    const records = tools.map((tool) => ({
      id: newId(),
      name: tool.name,
      schema: tool.schema === undefined ? null : tool.schema,
      sideEffect: tool.sideEffect ?? "unknown",
    }));
    await sql.query`
      INSERT INTO "Tool" (id, "agentId", name, schema, "sideEffect", "updatedAt")
      SELECT id, ${agent.id}::text, name, schema, "sideEffect", CURRENT_TIMESTAMP
      FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(id text, name text, schema jsonb, "sideEffect" text)
      -- One order for every import, so two adding the same tools never wait on each other crosswise.
      ORDER BY name COLLATE "C"
      ON CONFLICT ("agentId", name) DO NOTHING`;
    // What a later import declares (a schema, a side-effect class) still updates a known tool (when it differs).
    const known = new Map(
      (
        await sql.query<{ name: string; schema: unknown; sideEffect: string }[]>`
          SELECT name, schema, "sideEffect" FROM "Tool"
          WHERE "agentId" = ${agent.id}::text AND name = ANY(${tools.map((t) => t.name)}::text[])`
      ).map((t) => [t.name, t]),
    );
    for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (tool.schema === undefined && !tool.sideEffect) continue;
      const before = known.get(tool.name);
      if (
        before &&
        (tool.schema === undefined || canonicalJson(tool.schema) === canonicalJson(before.schema)) &&
        (!tool.sideEffect || tool.sideEffect === before.sideEffect)
      )
        continue;
      await sql.query`
        UPDATE "Tool" SET
          schema = CASE WHEN ${tool.schema !== undefined}::boolean THEN ${JSON.stringify(tool.schema ?? null)}::jsonb ELSE schema END,
          "sideEffect" = coalesce(${tool.sideEffect ?? null}::text, "sideEffect"), "updatedAt" = CURRENT_TIMESTAMP
        WHERE "agentId" = ${agent.id}::text AND name = ${tool.name}::text`;
    }
  }
  return { agentId: agent.id, agentVersionId: version.id };
}

/** The session's declared tools plus every tool it called, declared ones first. */
function toolsOf(s: ImportedSession): ImportedSession["tools"] {
  const byName = new Map(s.tools.map((t) => [t.name, t]));
  for (const e of s.events) if (e.kind === "tool_call" && !byName.has(e.name)) byName.set(e.name, { name: e.name });
  return [...byName.values()];
}

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** A session's row (its agent's ids given) and, once it has an id, its failure cluster's assignment. */
function sessionRow(s: ImportedSession, { agentId, agentVersionId }: { agentId: string; agentVersionId: string }) {
  const summary = summarize(s.events, s.metadata);
  const firstStart = s.startedAt ?? s.events.find((e) => e.startedAt)?.startedAt ?? null;
  // A trace-ingested session's trace ids are rows of their own (./session-traces.ts).
  const stored = splitTraceIds(s.format, s.metadata);
  const data = {
    agentId,
    agentVersionId,
    externalId: s.externalId,
    title: s.title,
    format: s.format,
    startedAt: firstStart ? new Date(firstStart) : null,
    endedAt: s.endedAt ? new Date(s.endedAt) : null,
    durationMs: firstStart && s.endedAt ? Math.max(0, Date.parse(s.endedAt) - Date.parse(firstStart)) : null,
    ...summary,
    searchText: searchTextFor(s),
    metadata: json(stored.metadata),
  };
  // Its failure cluster, in the same transaction (lib/db/clusters.ts).
  const cluster = (sessionId: string): ClusterAssignment => ({
    sessionId,
    agentId,
    agentVersionId,
    seenAt: data.startedAt ?? new Date(),
    signature: failureSignature(summary, s.events),
  });
  return { data, cluster, traceIds: stored.traceIds };
}

/** Rewrites a stored session (a rebuilt trace session) as `s`, in the caller's transaction. */
async function rewriteSession(tx: DbClient, s: ImportedSession, existingId: string): Promise<SavedSession> {
  const { data, cluster, traceIds } = sessionRow(s, await ensureAgent(prismaSql(tx), s));
  await tx.session.update({ where: { id: existingId }, data });
  if (traceIds) await replaceTraceIds(prismaSql(tx), existingId, traceIds);
  await replaceChangedEvents(tx, existingId, eventRows(existingId, s.events));
  await writeClusterAssignments(prismaSql(tx), [cluster(existingId)]);
  await writeSessionCost(prismaSql(tx), existingId, costUsage(s.events));
  return { id: existingId, eventCount: s.events.length };
}

/**
 * Writes imported sessions in one transaction: all or nothing. A session
 * whose (format, externalId) was imported before is not written again; its
 * existing id comes back marked `duplicate`.
 *
 * Inputs and outputs are written as JSON.stringify of the parsed values, as
 * every writer of Event and ReplayStep writes them: the database's digests of
 * them (outputDigest, plainInputDigest) are then equal for equal values
 * (`1.0` and `1` written as text would differ).
 */
export async function saveImportedSessions(
  prisma: Db,
  sessions: readonly ImportedSession[],
  /** The demo loader's: the new sessions are demo data (only demo data may run on the built-in demo model). */
  opts: { demo?: boolean } = {},
): Promise<SavedSession[]> {
  return prisma.$transaction(
    async (tx) => {
      const saved = await saveSessionsIn(tx, sessions);
      const fresh = saved.filter((x) => !x.duplicate).map((x) => x.id);
      if (opts.demo && fresh.length > 0)
        await tx.session.updateMany({ where: { id: { in: fresh } }, data: { demo: true } });
      return saved;
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

/** How many new sessions, or their events, one window of saveSessionsIn writes with each statement. */
const WINDOW_SESSIONS = 200;
const WINDOW_EVENTS = 20_000;

/**
 * saveImportedSessions inside the caller's transaction (an import that writes several records in one). The
 * sessions new to the database are written a window at a time, a few statements per window (their rows, their
 * events, their clusters, their costs), not per session; a session whose (format, externalId) is stored or
 * earlier in the same list comes back as that one, marked `duplicate`. Results keep the list's order.
 */
export async function saveSessionsIn(tx: DbClient, sessions: readonly ImportedSession[]): Promise<SavedSession[]> {
  const known = await storedByExternalId(tx, sessions);
  const saved: SavedSession[] = [];
  const ids = ascendingIds();
  let window: { id: string; session: ImportedSession }[] = [];
  let windowEvents = 0;
  const agents = agentMemo();
  const flush = async () => {
    if (window.length > 0) await writeNewSessions(prismaSql(tx), window, agents);
    window = [];
    windowEvents = 0;
  };
  for (const s of sessions) {
    const key = s.externalId ? `${s.format}\u0000${s.externalId}` : null;
    const existing = key ? known.get(key) : undefined;
    if (existing) {
      saved.push({ ...existing, duplicate: true });
      continue;
    }
    const id = ids();
    if (key) known.set(key, { id, eventCount: s.events.length });
    if (window.length >= WINDOW_SESSIONS || windowEvents + s.events.length > WINDOW_EVENTS) await flush();
    window.push({ id, session: s });
    windowEvents += s.events.length;
    saved.push({ id, eventCount: s.events.length });
  }
  await flush();
  return saved;
}

/** The stored sessions of the list's (format, externalId) pairs, read a thousand ids at a time. */
async function storedByExternalId(tx: DbClient, sessions: readonly ImportedSession[]) {
  const byFormat = new Map<string, Set<string>>();
  for (const s of sessions) {
    if (!s.externalId) continue;
    const set = byFormat.get(s.format) ?? new Set<string>();
    set.add(s.externalId);
    byFormat.set(s.format, set);
  }
  const known = new Map<string, { id: string; eventCount: number }>();
  for (const [format, set] of byFormat) {
    const all = [...set];
    for (let i = 0; i < all.length; i += 1000) {
      const rows = await tx.session.findMany({
        where: { format, externalId: { in: all.slice(i, i + 1000) } },
        select: { id: true, eventCount: true, externalId: true },
      });
      for (const r of rows) known.set(`${format}\u0000${r.externalId}`, { id: r.id, eventCount: r.eventCount });
    }
  }
  return known;
}

/**
 * Ids for the new sessions of one save, in the order they are listed: one time prefix, then a counter, then
 * randomness (sessions of one import share their created time; the session list breaks that tie by id).
 */
function ascendingIds(): () => string {
  const prefix = newId().slice(0, 9);
  let n = 0;
  return () => `${prefix}${(n++).toString(36).padStart(4, "0")}${newId().slice(13)}`;
}

/** ensureAgent once per agent, version and tool list within one save (every later call would find its rows). */
function agentMemo() {
  const memo = new Map<string, { agentId: string; agentVersionId: string }>();
  return async (sql: SqlTx, s: ImportedSession) => {
    const key = canonicalJson([s.agent, s.agentVersion, toolsOf(s)]) ?? "";
    const hit = memo.get(key);
    if (hit) return hit;
    const ensured = await ensureAgent(sql, s);
    memo.set(key, ensured);
    return ensured;
  };
}

/**
 * One window of new sessions: their agents, rows, trace ids, events, clusters and costs. `traceState`: what a
 * trace-ingested session keeps for its next export (lib/ingest/increment), written with its row.
 */
async function writeNewSessions(
  sql: SqlTx,
  window: readonly { id: string; session: ImportedSession; traceState?: unknown }[],
  agents: ReturnType<typeof agentMemo>,
): Promise<void> {
  const rows: string[] = [];
  const clusters: ClusterAssignment[] = [];
  const traces: { id: string; traceIds: NonNullable<ReturnType<typeof sessionRow>["traceIds"]> }[] = [];
  for (const { id, session, traceState } of window) {
    const row = sessionRow(session, await agents(sql, session));
    rows.push(JSON.stringify({ id, ...row.data, traceState: traceState ?? null }));
    clusters.push(row.cluster(id));
    if (row.traceIds) traces.push({ id, traceIds: row.traceIds });
  }
  await sql.query`
    INSERT INTO "Session" (id, "agentId", "agentVersionId", "externalId", title, format, status, outcome, "outcomeReason",
      "outcomeSeq", "startedAt", "endedAt", "durationMs", "eventCount", "modelCallCount", "toolCallCount", "errorCount",
      "inputTokens", "outputTokens", "costUsd", "toolNames", "searchText", metadata, "traceState")
    SELECT id, "agentId", "agentVersionId", "externalId", title, format, status, outcome, "outcomeReason",
      "outcomeSeq", "startedAt", "endedAt", "durationMs", "eventCount", "modelCallCount", "toolCallCount", "errorCount",
      "inputTokens", "outputTokens", "costUsd", "toolNames", "searchText", metadata, "traceState"
    FROM jsonb_to_recordset(${`[${rows.join(",")}]`}::jsonb) AS x(id text, "agentId" text, "agentVersionId" text,
      "externalId" text, title text, format text, status text, outcome text, "outcomeReason" text, "outcomeSeq" int,
      "startedAt" timestamptz, "endedAt" timestamptz, "durationMs" int, "eventCount" int, "modelCallCount" int,
      "toolCallCount" int, "errorCount" int, "inputTokens" int, "outputTokens" int, "costUsd" float8,
      "toolNames" text[], "searchText" text, metadata jsonb, "traceState" jsonb)`;
  for (const t of traces) await replaceTraceIds(sql, t.id, t.traceIds);
  await insertEventRows(
    sql,
    window.flatMap(({ id, session }) => eventRows(id, session.events)),
  );
  await writeClusterAssignments(sql, clusters, { fresh: true });
  // The source's cost, else the price table's estimate (./prices.ts).
  await writeSessionCosts(
    sql,
    window.map(({ id, session }) => ({ sessionId: id, usage: costUsage(session.events) })),
  );
}

/**
 * New trace-ingested sessions (no session of their format and external id is stored: the caller holds their
 * keys' locks and has read none), each with what it keeps for its next export, on the caller's transaction:
 * written as saveSessionsIn writes new sessions, so the incremental ingest's first export of a group stores
 * what the full rebuild would.
 */
export async function saveNewTraceSessions(
  sql: SqlTx,
  sessions: readonly { session: ImportedSession; traceState: unknown }[],
): Promise<SavedSession[]> {
  const ids = ascendingIds();
  const agents = agentMemo();
  const saved: SavedSession[] = [];
  for (const { session, traceState } of sessions) {
    const id = ids();
    await writeNewSessions(sql, [{ id, session, traceState }], agents);
    saved.push({ id, eventCount: session.events.length });
  }
  return saved;
}

/** Replaces a session rebuilt from more spans (OTLP batching), or creates it. Call inside a transaction. */
export async function upsertRebuiltSession(tx: DbClient, s: ImportedSession): Promise<SavedSession> {
  const existing = s.externalId
    ? await tx.session.findUnique({
        where: { format_externalId: { format: s.format, externalId: s.externalId } },
        select: { id: true },
      })
    : null;
  return existing ? rewriteSession(tx, s, existing.id) : (await saveSessionsIn(tx, [s]))[0]!;
}
