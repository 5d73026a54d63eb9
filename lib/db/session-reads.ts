/** Reading stored sessions: heads, events in windows and outlines (the list and its filters: session-list.ts). */
import { type SessionEvent } from "@/lib/replay";
import type { DbClient } from "./client";
import { Prisma, type Event } from "./generated/client";
import { sqlStatement } from "./sql";
import { withTraceIdsOf } from "./session-traces";
import { expandInputAt, expandInputs } from "@/lib/sessions/inputs";

type StoredEventRow = {
  seq: number;
  kind: string;
  input: unknown;
  inputPrefixSeq: number | null;
  inputPrefixCount: number | null;
};

/** A stored row as the input expanders read it: its pointer, if any, as a prefix. */
const storedStep = (r: StoredEventRow) => ({
  seq: r.seq,
  kind: r.kind,
  input: r.input,
  prefix: r.inputPrefixSeq === null ? null : { seq: r.inputPrefixSeq, count: r.inputPrefixCount ?? 0 },
});

/**
 * Rows of ONE session (all of its model calls up to the last row's seq, in
 * seq order) with each model call's full input in place of its stored form.
 */
export function withFullInputs<R extends StoredEventRow>(rows: readonly R[]): R[] {
  if (!rows.some((r) => r.inputPrefixSeq !== null)) return [...rows];
  const full = expandInputs(rows.map(storedStep));
  return rows.map((r, i) => ({ ...r, input: full[i] }));
}

/** One stored event with its full input (its model call's prefix read and expanded), or null. */
export async function fullEvent(client: DbClient, sessionId: string, seq: number) {
  const row = await client.event.findUnique({ where: { sessionId_seq: { sessionId, seq } } });
  if (!row || row.inputPrefixSeq === null) return row;
  const before = await client.event.findMany({
    where: { sessionId, kind: "model_call", seq: { lt: seq } },
    orderBy: { seq: "asc" },
    select: { seq: true, kind: true, input: true, inputPrefixSeq: true, inputPrefixCount: true },
  });
  return { ...row, input: expandInputAt([...before, row].map(storedStep), before.length) as typeof row.input };
}

/** What names a session where it is picked or found: its title or external id, format, start and agent. */
export const sessionNameSelect = {
  id: true,
  title: true,
  externalId: true,
  format: true,
  startedAt: true,
  agent: { select: { name: true } },
} satisfies Prisma.SessionSelect;

export const sessionListSelect = {
  id: true,
  title: true,
  externalId: true,
  format: true,
  status: true,
  outcome: true,
  outcomeReason: true,
  outcomeSeq: true,
  startedAt: true,
  durationMs: true,
  eventCount: true,
  modelCallCount: true,
  toolCallCount: true,
  errorCount: true,
  inputTokens: true,
  outputTokens: true,
  costUsd: true,
  costSource: true,
  toolNames: true,
  createdAt: true,
  agentVersionId: true,
  agent: { select: { id: true, name: true, adapter: true } },
  agentVersion: { select: { version: true } },
} satisfies Prisma.SessionSelect;

export type SessionListItem = Prisma.SessionGetPayload<{ select: typeof sessionListSelect }>;

/** A session's agent, adapter and capabilities: what a policy is validated against for it. */
export async function sessionContext(client: DbClient, id: string) {
  return client.session.findUnique({
    where: { id },
    select: {
      id: true,
      agentId: true,
      demo: true,
      agent: { select: { adapter: true } },
      agentVersion: { select: { capabilities: true } },
    },
  });
}

/** A session's events in order, as the engine reads them. */
export async function sessionEvents(client: DbClient, id: string): Promise<SessionEvent[]> {
  const rows = await client.event.findMany({ where: { sessionId: id }, orderBy: { seq: "asc" } });
  return withFullInputs(rows).map(toSessionEvent);
}

/**
 * A session's events in order with model inputs in the stored form (each
 * model call's `input.messages` holds what it adds, `inputPrefix` names the
 * call it extends): what a replay reads, so that loading and replaying a long
 * conversation cost its length, not its square (the engine takes both forms).
 */
export async function sessionEventsCompact(client: DbClient, id: string): Promise<SessionEvent[]> {
  const rows = await client.event.findMany({ where: { sessionId: id }, orderBy: { seq: "asc" } });
  return rows.map((r) => {
    const event = toSessionEvent(r);
    if (r.inputPrefixSeq !== null) event.inputPrefix = { seq: r.inputPrefixSeq, count: r.inputPrefixCount ?? 0 };
    return event;
  });
}

/** Values for the browser's filter menus. */
export async function sessionFacets(client: DbClient) {
  const [agents, tools, labels] = await Promise.all([
    client.agent.findMany({ orderBy: { name: "asc" }, select: { name: true, adapter: true } }),
    client.tool.findMany({ distinct: ["name"], orderBy: { name: "asc" }, select: { name: true } }),
    client.annotation.findMany({
      where: { label: { not: null } },
      distinct: ["label"],
      orderBy: { label: "asc" },
      select: { label: true },
    }),
  ]);
  return {
    agents,
    tools: tools.map((t) => t.name),
    labels: labels.flatMap((l) => (l.label === null ? [] : [l.label])),
  };
}

/** An agent's tools as a native document declares them, by name. */
export async function agentTools(client: DbClient, agentId: string) {
  return client.tool.findMany({
    where: { agentId },
    orderBy: { name: "asc" },
    select: { name: true, schema: true, sideEffect: true },
  });
}

/**
 * A session with its events in order. Model inputs are full unless `inputs`
 * is "delta": then each model call's input holds only the messages it adds and
 * `inputPrefixSeq`/`inputPrefixCount` name what comes before them.
 */
export async function getSession(client: DbClient, id: string, opts: { inputs?: "full" | "delta" } = {}) {
  const session = await client.session.findUnique({
    where: { id },
    // A bigint, which JSON cannot carry: read by what shows the cost (./prices.ts).
    omit: { costMicros: true },
    include: {
      agent: true,
      agentVersion: true,
      events: { orderBy: { seq: "asc" } },
    },
  });
  const read = await withTraceIdsOf(client, session);
  if (!read || opts.inputs === "delta") return read;
  return { ...read, events: withFullInputs(read.events) };
}
export type SessionWithEvents = NonNullable<Awaited<ReturnType<typeof getSession>>>;

/** A session without its events (agent and version included): what is sent before them. */
export async function sessionHead(client: DbClient, id: string) {
  return withTraceIdsOf(
    client,
    await client.session.findUnique({
      where: { id },
      omit: { costMicros: true },
      include: { agent: true, agentVersion: true },
    }),
  );
}
export type SessionHead = NonNullable<Awaited<ReturnType<typeof sessionHead>>>;

/** How many seqs one read of `sessionEventRows` covers. */
export const EVENT_WINDOW = 200;

/**
 * An event row's columns as the client reads them (Event), for a read on the driver: a window of a replay's base
 * read through the client cost about twice its statement (0.9 vs 0.4 ms for a short session on PostgreSQL).
 */
const EVENT_COLUMNS = Prisma.sql`id, "sessionId", seq, kind, name, input, output, error, status, "startedAt",
  "durationMs", "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "costUsd", "parentSeq",
  "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest"`;

/** The largest seq the column holds (int4). */
const MAX_SEQ = 2 ** 31 - 1;

/**
 * A session's event rows in seq order, in their stored form, read a window of
 * `window` seqs at a time. Each read is a seq range on the (sessionId, seq)
 * index, so it costs its window, not the session: an ORDER BY seq LIMIT alone
 * let PostgreSQL, without statistics on a freshly imported session, sort all
 * of its rows to return the first 200. A gap in the seqs is jumped in one
 * read of the index. Not one snapshot: a trace export that writes the session
 * meanwhile may show in the windows read after it.
 */
/**
 * `from`: the first seq read (default: the run's first). `seqs`: the session's first and last seq as the caller
 * read them (null: no events), so that a session within one window is read in one statement: no read of where it
 * starts, nor of what follows its last seq (events stored after that read are not read).
 */
export async function* sessionEventRows(
  client: DbClient,
  id: string,
  window = EVENT_WINDOW,
  from?: number,
  seqs?: { first: number; last: number } | null,
) {
  if (seqs === null) return;
  const end = seqs === undefined ? MAX_SEQ : seqs.last;
  const next = async (after: number | null) =>
    after !== null && after >= end
      ? null
      : client.event.findFirst({
          where: { sessionId: id, ...(after === null ? {} : { seq: { gt: after } }) },
          orderBy: { seq: "asc" },
          select: { seq: true },
        });
  const first = seqs && from === undefined ? seqs.first : (await next(from === undefined ? null : from - 1))?.seq;
  for (let start = first; start !== undefined && start <= end;) {
    // The last seq of the window, within the column's range (an int4) and the session's last seq.
    const last = Math.min(start + window - 1, end);
    const rows = await sqlStatement<Event>(
      client,
      Prisma.sql`SELECT ${EVENT_COLUMNS} FROM "Event"
        WHERE "sessionId" = ${id} AND seq BETWEEN ${start}::int AND ${last}::int ORDER BY seq`,
    );
    yield* rows;
    if (last === end) return;
    // Dense seqs (the usual case) go on at the next window without asking where it starts.
    start = rows.at(-1)?.seq === last ? last + 1 : (await next(last))?.seq;
  }
}

type StepColumns = { kind: string; name: string; status: string; input: unknown; output: unknown; error: unknown };

/** The columns a stored step has whether it is a session's event or a replay's step: what it was and how it went. */
export function storedStepFields(row: StepColumns) {
  return {
    kind: row.kind as SessionEvent["kind"],
    name: row.name,
    input: row.input ?? null,
    output: row.output ?? null,
    error: (row.error as SessionEvent["error"]) ?? null,
    status: row.status as SessionEvent["status"],
  };
}

/** A stored event as the engine reads it. */
export function toSessionEvent(e: SessionWithEvents["events"][number]): SessionEvent {
  const usage =
    e.inputTokens === null && e.outputTokens === null && e.costUsd === null
      ? null
      : {
          ...(e.inputTokens === null ? {} : { inputTokens: e.inputTokens }),
          ...(e.outputTokens === null ? {} : { outputTokens: e.outputTokens }),
          ...(e.costUsd === null ? {} : { costUsd: e.costUsd }),
          ...(e.cachedInputTokens === null ? {} : { cachedInputTokens: e.cachedInputTokens }),
          ...(e.cacheWriteInputTokens === null ? {} : { cacheWriteInputTokens: e.cacheWriteInputTokens }),
        };
  return {
    seq: e.seq,
    ...storedStepFields(e),
    startedAt: e.startedAt?.toISOString() ?? null,
    durationMs: e.durationMs,
    usage,
    parentSeq: e.parentSeq,
    cacheKey: e.cacheKey,
    occurrence: e.occurrence,
  };
}

/** What every step of a session did (seq, kind, name, output), in order, without the inputs: a list of its steps that costs its length. */
export async function sessionOutline(client: DbClient, sessionId: string) {
  return client.event.findMany({
    where: { sessionId },
    orderBy: { seq: "asc" },
    select: { seq: true, kind: true, name: true, output: true },
  });
}

/** What the steps at these seqs did (kind, name, output), without their inputs: for naming a few steps of a long session. */
export async function stepOutlines(client: DbClient, sessionId: string, seqs: readonly number[]) {
  if (seqs.length === 0) return [];
  return client.event.findMany({
    where: { sessionId, seq: { in: [...seqs] } },
    select: { seq: true, kind: true, name: true, output: true },
  });
}
