/**
 * The rows of a session's events: their stored form (model inputs compacted, ./inputs in lib/ingest), how two
 * rows are compared, how many are inserted per statement, and the ids they are given.
 */
import { randomBytes } from "node:crypto";
import type { CompactInput } from "@/lib/sessions/inputs";
import { compactInputs } from "@/lib/sessions/inputs";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import type { DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { prismaSql, type SqlTx } from "./sql";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/**
 * The rows of a session's events, model inputs in their stored form (each message once: see ./inputs.ts).
 * `previous`: the model call just before `events` when they are the tail of a session (its full input).
 */
export function eventRows(
  sessionId: string,
  events: readonly SessionEvent[],
  previous: { seq: number; input: unknown } | null = null,
): Prisma.EventCreateManyInput[] {
  const compact = previous
    ? compactInputs([{ seq: previous.seq, kind: "model_call", input: previous.input }, ...events]).slice(1)
    : compactInputs(events);
  return events.map((e, i) => eventRow(sessionId, e, compact[i]!));
}

/** One event's row, its model input in the stored form `compact` gives (from compactInputs or inputCompactor). */
export function eventRow(sessionId: string, e: SessionEvent, compact: CompactInput): Prisma.EventCreateManyInput {
  return {
    sessionId,
    seq: e.seq,
    kind: e.kind,
    name: e.name,
    input: compact.input === undefined || compact.input === null ? undefined : json(compact.input),
    inputPrefixSeq: compact.prefix?.seq ?? null,
    inputPrefixCount: compact.prefix?.count ?? null,
    inputDigest: compact.digest,
    output: e.output === undefined || e.output === null ? undefined : json(e.output),
    error: e.error ?? undefined,
    status: e.status,
    startedAt: e.startedAt ? new Date(e.startedAt) : null,
    durationMs: e.durationMs === null ? null : Math.round(e.durationMs),
    inputTokens: e.usage?.inputTokens ?? null,
    cachedInputTokens: e.usage?.cachedInputTokens ?? null,
    cacheWriteInputTokens: e.usage?.cacheWriteInputTokens ?? null,
    outputTokens: e.usage?.outputTokens ?? null,
    costUsd: e.usage?.costUsd ?? null,
    parentSeq: e.parentSeq,
    cacheKey: e.cacheKey,
    occurrence: e.occurrence,
  };
}

/** The stored columns of an event row that carry its content (not its id), as comparable text. */
export function rowText(r: {
  seq: number;
  kind: string;
  name: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  status: string;
  startedAt?: Date | string | null;
  durationMs?: number | null;
  inputTokens?: number | null;
  cachedInputTokens?: number | null;
  cacheWriteInputTokens?: number | null;
  outputTokens?: number | null;
  costUsd?: number | null;
  parentSeq?: number | null;
  cacheKey?: string | null;
  occurrence?: number | null;
  inputPrefixSeq?: number | null;
  inputPrefixCount?: number | null;
  inputDigest?: string | null;
}): string {
  const startedAt = r.startedAt === null || r.startedAt === undefined ? null : new Date(r.startedAt).toISOString();
  return (
    canonicalJson([
      r.seq,
      r.kind,
      r.name,
      r.input ?? null,
      r.output ?? null,
      r.error ?? null,
      r.status,
      startedAt,
      r.durationMs ?? null,
      r.inputTokens ?? null,
      r.outputTokens ?? null,
      r.costUsd ?? null,
      r.parentSeq ?? null,
      r.cacheKey ?? null,
      r.occurrence ?? null,
      r.inputPrefixSeq ?? null,
      r.inputPrefixCount ?? null,
      r.inputDigest ?? null,
      // Last, and only when set: a row without cached tokens compares as it did before the column.
      ...(r.cachedInputTokens === null || r.cachedInputTokens === undefined ? [] : [r.cachedInputTokens]),
      // The same for cache writes, marked (a row with writes but no reads is not one with reads).
      ...(r.cacheWriteInputTokens === null || r.cacheWriteInputTokens === undefined
        ? []
        : ["w", r.cacheWriteInputTokens]),
    ]) ?? ""
  );
}

/**
 * A rebuilt session's events written as a change: rows whose content is the
 * same stay (ids and all), changed and new ones are written, gone ones are
 * deleted. A trace export that adds steps to a running session thus writes
 * those steps (and the few it changes: a parent, the final answer), not the
 * whole session again.
 */
export async function replaceChangedEvents(
  tx: DbClient,
  sessionId: string,
  rows: readonly Prisma.EventCreateManyInput[],
  /** Only the events from this seq on are replaced (the tail a trace export changed). */
  fromSeq = 0,
): Promise<void> {
  const stored = await tx.event.findMany({ where: { sessionId, ...(fromSeq > 0 ? { seq: { gte: fromSeq } } : {}) } });
  const storedBySeq = new Map(stored.map((r) => [r.seq, r]));
  const wanted = new Set(rows.map((r) => r.seq));
  const stale = stored.filter((r) => !wanted.has(r.seq)).map((r) => r.id);
  const write: Prisma.EventCreateManyInput[] = [];
  for (const row of rows) {
    const before = storedBySeq.get(row.seq);
    if (before && rowText(before) === rowText(row)) continue;
    if (before) stale.push(before.id);
    write.push(row);
  }
  if (stale.length > 0) await tx.event.deleteMany({ where: { id: { in: stale } } });
  await insertEventRows(prismaSql(tx), write);
}

/** Most bytes of JSON one INSERT carries: the embedded database aborts the process (exit 100) on a statement of hundreds of MB. */
const INSERT_BYTES = 4_000_000;

/**
 * Inserts event rows as JSON records (`jsonb_to_recordset`): one parameter per
 * statement, about INSERT_BYTES each. Four times faster than createMany's
 * parameter per column on the embedded database, and never one giant statement.
 */
export async function insertEventRows(sql: SqlTx, rows: readonly Prisma.EventCreateManyInput[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await sql.query`
      INSERT INTO "Event" (id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
        "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq",
        "inputPrefixCount", "inputDigest")
      SELECT id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
        "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq",
        "inputPrefixCount", "inputDigest"
      FROM jsonb_to_recordset(${`[${batch.join(",")}]`}::jsonb) AS x(id text, "sessionId" text, seq int, kind text, name text,
        input jsonb, output jsonb, error jsonb, status text, "startedAt" timestamptz, "durationMs" int, "inputTokens" int,
        "cachedInputTokens" int, "cacheWriteInputTokens" int, "outputTokens" int, "costUsd" float8, "parentSeq" int, "cacheKey" text, occurrence int, "inputPrefixSeq" int,
        "inputPrefixCount" int, "inputDigest" text)`;
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    const text = JSON.stringify({ ...row, id: row.id ?? newId() });
    if (bytes + text.length > INSERT_BYTES) await flush();
    batch.push(text);
    bytes += text.length + 1;
  }
  await flush();
}

/** A new row id: 25 characters like Prisma's cuid (time, then randomness). */
export function newId(): string {
  return `c${Date.now().toString(36)}${randomChunk()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "0")}`.slice(0, 25);
}

/**
 * 9 random bytes as base64url, cut from a pool filled 4 KB at a time (a call into the random source per id cost
 * more than the rest of the id; read in place: a subarray per id cost more than its encoding).
 */
let pool = Buffer.alloc(0);
let poolAt = 0;
function randomChunk(): string {
  if (poolAt + 9 > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  poolAt += 9;
  return pool.toString("base64url", poolAt - 9, poolAt);
}
