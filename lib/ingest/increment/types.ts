import type { SessionEvent } from "@/lib/replay";
import type { ImportedSession } from "../types";

// The shapes the incremental ingest plans with: what the database layer reads for it (stored rows,
// the session row, a window's read), the steps a plan asks the database for, and the plan it returns.
// Everything here is data: the planners are pure, and lib/server/ingest drives their reads and writes.

/** A stored span row as a plan reads it; `item()` decodes its stored copy (once: the reader memoizes it). */
export type StoredRow<T> = {
  id: string;
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  /** The span's digest (OTLP; null for a source without digests, or a row stored before them). */
  digest: unknown;
  item(): T;
};

/** The columns of a row the indexed reads use. */
export type SpanColumns = { startNs: bigint; lastNs: bigint; role: string; callIds?: string[] };

/** A new span row (the columns of `TraceSpan` an insert sets); the database layer packs `item`. */
export type NewSpanRow = {
  groupKey: string;
  traceId: string;
  spanId: string;
  sessionId: string | null;
  item: { path?: string };
  digest: unknown;
  /** Its read columns (null: none, a trace item's). */
  columns: SpanColumns | null;
};

/** A stored row given a better copy of its span: its item, digest (null: kept as it is) and read columns. */
export type RowReplacement = { rowId: string; item: { path?: string }; digest: unknown; columns: SpanColumns | null };

/** A session's figures as its row keeps them. */
export type SessionFigures = {
  eventCount: number;
  modelCallCount: number;
  toolCallCount: number;
  errorCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
};

export type SessionRow = SessionFigures & {
  id: string;
  externalId: string | null;
  format: string;
  metadata: unknown;
  traceState: unknown;
  agentId: string;
  agentVersionId: string;
  replays: number;
  /** Agents SDK: whether the session's trace ids are all rows of "SessionTrace" (none left in its metadata). */
  listed?: boolean | null;
};

/** A stored event as read back as JSON (`to_jsonb` of the row). */
export type StoredEvent = {
  id: string;
  seq: number;
  kind: string;
  name: string;
  input: unknown;
  output: unknown;
  error: unknown;
  status: string;
  startedAt: string | null;
  durationMs: number | null;
  inputTokens: number | null;
  /** Absent in rows read before the column existed. */
  cachedInputTokens?: number | null;
  /** Absent in rows read before the column existed. */
  cacheWriteInputTokens?: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  parentSeq: number | null;
  cacheKey: string | null;
  occurrence: number | null;
  inputPrefixSeq: number | null;
  inputPrefixCount: number | null;
  inputDigest: string | null;
};

export type Anchor = {
  seq: number;
  kind: string;
  name: string;
  status: string;
  input: unknown;
  output: unknown;
  inputPrefixSeq: number | null;
};

/** What a window needs of the rest of its session, read in one round trip. */
export type WindowRead<T> = {
  /** Other traces with a span ending at or after C (OTLP: in or after C's millisecond), with their latest end. */
  reaching: { traceId: string; last: string }[];
  /** OTLP: spans of other traces naming one of the window's call ids. */
  outside?: { traceId: string; role: string | null; callIds: string[] }[];
  /** The stored events from C on, in seq order. */
  tail: StoredEvent[];
  from: number;
  /** Agents SDK: events without a start time. */
  untimed?: number;
  /** The prefix's first model call, first user turn, last final answer and last model call (seqs). */
  fm: number | null;
  fu: number | null;
  lf: number | null;
  lm: number | null;
  anchors: Anchor[];
  /** The prefix's latest-starting model spans. */
  lastModel: StoredRow<T>[];
  /** The occurrence of each cache key's last finished call before the window. */
  occurrences: { k: string; occurrence: number | null }[];
};

/** What a planner asks the database for; the answer comes back as the value of its `yield`. */
export type Read =
  /** The stored rows of some traces and the sessions of the groups they or `ownKeys` reach. */
  | { kind: "load"; traceIds: string[]; ownKeys: string[] }
  /** A window's read (see `WindowRead`). */
  | {
      kind: "window";
      sessionId: string;
      eventCount: number;
      c: bigint;
      window: string[];
      ids: string[];
      keys: string[];
    }
  /** The stored rows of some traces. */
  | { kind: "traces"; traceIds: string[] }
  /** The rows of the session's other traces with a span ending at or after `c`. */
  | { kind: "reaching"; sessionId: string; c: bigint; window: string[] }
  /** Every row of a session, with its read columns. */
  | { kind: "sessionRows"; sessionId: string }
  /** The digests of every row of a session. */
  | { kind: "sessionDigests"; sessionId: string }
  /** The kind, name and status of a session's events before `from`. */
  | { kind: "prefixEvents"; sessionId: string; from: number }
  /** How many rows are stored under some group keys (prefixed). */
  | { kind: "keyed"; keys: string[] };

/** A stored row with the read columns it carries (`sessionRows`). */
export type ColumnedRow<T> = StoredRow<T> & { startNs: string | null; lastNs: string | null; role: string | null };

/** Why a plan cannot be made incrementally: the full rebuild runs instead. */
export type Fallback = { fallback: string };

/** A pure planner: yields its reads, returns its result or a fallback. */
export type Planner<R> = Generator<Read, R | Fallback, unknown>;

/** The figures a window's plan writes on its session row besides the events. */
export type Summary = SessionFigures & {
  toolNames: string[];
  status: string;
};

/** One group's incremental change, computed before anything is written (`S`: the state its session keeps). */
export type GroupPlan<S> = {
  key: string;
  session: SessionRow;
  from: number;
  previousModel: { seq: number; input: unknown } | null;
  tail: SessionEvent[];
  storedTail: StoredEvent[];
  fields: Omit<ImportedSession, "events">;
  summary: Summary;
  /** The events the session's search text is made of (the prefix's anchors, then the window's). */
  searchEvents: SessionEvent[];
  eventCount: number;
  state: S;
  ensure: boolean;
};

/** A group's plan with what is written beside it. */
export type GroupWrite<S> = {
  plan: GroupPlan<S>;
  /** The group's new span rows. */
  spans: NewSpanRow[];
  /** Rows whose read columns are corrected first. */
  fixes: { id: string; startNs: string; lastNs: string; role: string }[];
  /** The session's trace ids were derived from its rows: the list left in its metadata goes first. */
  derived: boolean;
};

/** A group mapped from all its spans: its key (unprefixed), its members' ids and its session (null: no model or tool step yet). */
export type RebuiltGroup = {
  key: string;
  memberIds: string[];
  session: ImportedSession | null;
  /** What the session keeps for its next export, given the session as written. */
  state(session: ImportedSession): unknown;
};

/**
 * A group nothing of which is stored yet, mapped whole from the request's spans (as the full rebuild maps it):
 * its session (null: no model or tool step yet), what the session keeps for its next export, and its span rows
 * (their `sessionId` is the new session's, set as it is written).
 */
export type CreatedGroup = {
  key: string;
  session: ImportedSession | null;
  state: unknown;
  spans: NewSpanRow[];
};

/** A request's incremental plan: per group its writes, then the rows given better copies. */
export type IncrementPlan<S> = {
  groups: GroupWrite<S>[];
  /** Groups the request starts (none of their spans stored, no session): written after `groups`, in order. */
  created: CreatedGroup[];
  replacements: RowReplacement[];
  /** Every session the request reaches, as the full rebuild would report them. */
  sessions: { id: string; eventCount: number; externalId: string }[];
  inserted: number;
  updated: number;
};
