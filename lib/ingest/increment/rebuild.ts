import { storableSessions } from "@/lib/hostile/storable";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import { mapOpenAiAgentsGroups, openAiAgentsGroupKey, richer } from "../openai-agents";
import type { AgentsItem } from "../openai-agents-parse";
import { dedupeSpans, sessionGroupKey, type OtlpFormat, type OtlpSpan, type SpanDigest } from "../otlp";
import type { ImportedSession, ImportFormat, ImportIssue } from "../types";
import { agentsColumns, agentsIds, agentsStateOf, planAgentsIncrement, AGENTS_PREFIX } from "./agents";
import { otlpGroups, planOtlpIncrement, OTLP_FORMATS, OTLP_PREFIX, type IncrementRequest } from "./otlp";
import { digestColumns, idOf } from "./state";
import type { IncrementPlan, NewSpanRow, Planner, RebuiltGroup, SpanColumns, StoredRow } from "./types";

// ---------------------------------------------------------------------------
// Trace ingest: spans (OTLP) and items (OpenAI Agents SDK export) are stored
// idempotently, one TraceSpan row per (trace id, span id), and every session
// they touch is rebuilt from ALL the stored spans of its group. The mappers
// are pure functions of the SET of spans, so the final session is the same
// whatever the batching, order or duplication of exports.
//
// A row's `groupKey` is the RESOLVED group of its span (`otlp:session:<id>`,
// `otlp:trace:<id>`, `openai-agents:group:<id>`, `openai-agents:trace:<id>`):
// AI SDK 7 names the session on the root span only, so a child span that
// arrives first is stored under its trace, and moves (with its trace) into
// the session when the root arrives; the session that trace had on its own is
// then deleted (or, with replays, kept and superseded: see lib/server/ingest).
//
// This file is the full rebuild's pure part: what one source of spans is, and
// the plan of a rebuild from the rows read (new rows, better copies, rows that
// change group or session). Rejection: a request whose spans have missing or
// mistyped attributes (the mapper's warnings, each at an exact path) writes
// nothing. Rows already stored passed the same check, so every warning
// belongs to the request.
// ---------------------------------------------------------------------------

export type { RebuiltGroup } from "./types";

/** What the generic store-and-rebuild needs to know about one source of spans. */
export type Source<T> = {
  kind: "otlp" | "agents";
  prefix: string;
  formats: readonly ImportFormat[];
  ids(item: T): { traceId: string; spanId: string };
  /** The group the item names by itself (unprefixed). */
  ownKey(item: T): string;
  /** True when copy `a` of a span is preferred over copy `b`. */
  better(a: T, b: T): boolean;
  /** Stable text of an item for change detection (without its position in a request). */
  fingerprint(item: T): string;
  /** Every group of `items` with its members' ids and its session, plus warnings and each item's digest (OTLP). */
  rebuild(items: T[]): { groups: RebuiltGroup[]; warnings: ImportIssue[]; digests?: Map<string, SpanDigest> };
  /** The read columns of an item's row, when the source keeps no digests (Agents SDK). */
  columns?(item: T): SpanColumns | null;
  /** The incremental plan of a request (see ./group.ts). */
  increment(request: IncrementRequest<T>): Planner<IncrementPlan<unknown>>;
};

export function otlpSource(format: OtlpFormat): Source<OtlpSpan> {
  return {
    kind: "otlp",
    prefix: OTLP_PREFIX,
    formats: OTLP_FORMATS as ImportFormat[],
    ids: (s) => ({ traceId: s.traceId, spanId: s.spanId }),
    ownKey: (s) => sessionGroupKey(s),
    // dedupeSpans keeps the first copy unless a later one ranks higher.
    better: (a, b) => dedupeSpans([b, a])[0] === a,
    fingerprint: (s) => JSON.stringify({ ...s, path: "" }),
    increment: (request) => planOtlpIncrement(request, format),
    rebuild: (spans) => otlpGroups(spans, format),
  };
}

export const agentsSource: Source<AgentsItem> = {
  kind: "agents",
  prefix: AGENTS_PREFIX,
  formats: ["openai-agents"],
  ids: agentsIds,
  ownKey: openAiAgentsGroupKey,
  better: richer,
  fingerprint: (item) => JSON.stringify({ ...item, path: "" }),
  increment: planAgentsIncrement,
  rebuild: (items) => {
    const mapped = mapOpenAiAgentsGroups(items);
    return {
      groups: mapped.groups.map((group) => ({
        key: group.key,
        memberIds: group.items.map((item) => idOf(agentsIds(item).traceId, agentsIds(item).spanId)),
        session: group.session,
        state: (session: ImportedSession) => agentsStateOf(group, session),
      })),
      warnings: mapped.warnings,
    };
  },
  columns: agentsColumns,
};

/** A request's items, one copy each (by `idOf`), with the group keys they name and their trace ids. */
export function requestOf<T>(source: Source<T>, incoming: readonly T[]) {
  const fresh = new Map<string, T>();
  for (const item of incoming) {
    const { traceId, spanId } = source.ids(item);
    const id = idOf(traceId, spanId);
    const current = fresh.get(id);
    if (!current || source.better(item, current)) fresh.set(id, item);
  }
  const keys = new Set<string>();
  const traceIds = new Set<string>();
  for (const item of fresh.values()) {
    keys.add(source.prefix + source.ownKey(item));
    traceIds.add(source.ids(item).traceId);
  }
  return { fresh, keys, traceIds };
}

/** A stored row as the rebuild reads it: with the columns the incremental reads use (bigints as text). */
export type ClosureRow = Omit<StoredRow<never>, "item"> & {
  startNs: string | null;
  lastNs: string | null;
  role: string | null;
};

/** The rebuild's input: every stored span of the groups, replaced by better copies, plus the new ones. */
export type Merged<T> = {
  inserted: string[];
  replaced: Set<string>;
  /** The stored rows by span id (`idOf`). */
  stored: Map<string, ClosureRow>;
  /** Every span of the groups after the request, by span id. */
  all: Map<string, T>;
};

/** New spans, and better copies of stored ones (`items`: the stored items by row id). */
export function mergeRequest<T>(
  source: Source<T>,
  fresh: ReadonlyMap<string, T>,
  rows: readonly ClosureRow[],
  items: ReadonlyMap<string, T>,
): Merged<T> {
  const stored = new Map(rows.map((r) => [idOf(r.traceId, r.spanId), r]));
  const inserted: string[] = [];
  const replaced = new Set<string>();
  for (const [id, item] of fresh) {
    const row = stored.get(id);
    const before = row ? items.get(row.id)! : undefined;
    if (!before) inserted.push(id);
    else if (source.better(item, before) && source.fingerprint(item) !== source.fingerprint(before)) replaced.add(id);
  }
  const all = new Map<string, T>();
  for (const [id, row] of stored) all.set(id, items.get(row.id)!);
  for (const id of [...inserted, ...replaced]) all.set(id, fresh.get(id)!);
  return { inserted, replaced, stored, all };
}

/** Every touched group rebuilt, with its session made storable; the request's issues when it cannot be. */
export function rebuildGroups<T>(
  source: Source<T>,
  all: ReadonlyMap<string, T>,
): { ok: true; groups: RebuiltGroup[]; digests?: Map<string, SpanDigest> } | { ok: false; issues: ImportIssue[] } {
  const { groups: rebuilt, warnings, digests } = source.rebuild([...all.values()]);
  if (warnings.length > 0) return { ok: false, issues: warnings };
  const storable = storableSessions(rebuilt.flatMap((g) => (g.session ? [g.session] : [])));
  if (!storable.ok) return { ok: false, issues: storable.issues };
  const repaired = [...storable.sessions];
  const groups = rebuilt.map((g) => (g.session ? { ...g, session: repaired.shift()! } : g));
  return { ok: true, groups, ...(digests ? { digests } : {}) };
}

/** The keys (unprefixed) the rows were stored under that no group has any more (a trace moved into a session). */
export function staleKeysOf(prefix: string, rows: readonly ClosureRow[], groups: readonly RebuiltGroup[]): string[] {
  const live = new Set(groups.map((g) => g.key));
  return [...new Set(rows.map((r) => r.groupKey.slice(prefix.length)))].filter((k) => !live.has(k));
}

/** Where each span of the groups goes: its group key (prefixed) and session. */
export type Placement = Map<string, { key: string; sessionId: string | null }>;

/** A stored row's rewrite: a better copy, a row packed and digested for the first time, or new read columns. */
export type RowUpdate = {
  id: string;
  groupKey: string;
  sessionId: string | null;
  item: { path?: string };
  digest: SpanDigest | null;
  columns: SpanColumns | null;
};

/** The span writes of a rebuild: new rows, rewritten rows, rows that change group or session, new read columns. */
export function spanWrites<T>(
  source: Source<T>,
  merged: Merged<T>,
  placement: Placement,
  digests: ReadonlyMap<string, SpanDigest> | undefined,
) {
  const insert: NewSpanRow[] = merged.inserted.map((id) => {
    const item = merged.all.get(id)!;
    const { traceId, spanId } = source.ids(item);
    const group = placement.get(id)!;
    const digest = digests?.get(id) ?? null;
    return {
      groupKey: group.key,
      traceId,
      spanId,
      sessionId: group.sessionId,
      item,
      digest,
      columns: digest ? digestColumns(digest) : (source.columns?.(item) ?? null),
    };
  });
  const updates: RowUpdate[] = [];
  const moves = new Map<string, string[]>();
  const recolumned: { id: string; startNs: string; lastNs: string; role: string }[] = [];
  for (const [id, row] of merged.stored) {
    const group = placement.get(id)!;
    // A source without digests: its rows' columns follow the copy stored (written here when they do not).
    const columns = source.columns?.(merged.all.get(id)!) ?? null;
    const digest = digests?.get(id) ?? null;
    const rewrite = (): RowUpdate => ({
      id: row.id,
      groupKey: group.key,
      sessionId: group.sessionId,
      item: merged.all.get(id)!,
      digest,
      columns: digest ? digestColumns(digest) : columns,
    });
    if (merged.replaced.has(id)) {
      updates.push(rewrite());
      continue;
    }
    if (
      columns &&
      (row.startNs !== String(columns.startNs) || row.lastNs !== String(columns.lastNs) || row.role !== columns.role)
    )
      recolumned.push({
        id: row.id,
        startNs: String(columns.startNs),
        lastNs: String(columns.lastNs),
        role: columns.role,
      });
    // A row stored before digests: packed and digested once, so its group can take the incremental path.
    if (digests && row.digest === null) updates.push({ ...rewrite(), columns: digest ? digestColumns(digest) : null });
    else if (row.groupKey !== group.key || row.sessionId !== group.sessionId) {
      const moveKey = JSON.stringify([group.key, group.sessionId]);
      const list = moves.get(moveKey) ?? [];
      list.push(row.id);
      moves.set(moveKey, list);
    }
  }
  return {
    insert,
    updates,
    moves: [...moves].map(([moveKey, ids]) => {
      const [groupKey, sessionId] = JSON.parse(moveKey) as [string, string | null];
      return { groupKey, sessionId, ids };
    }),
    recolumned,
  };
}

/** The events as `writeSession` would store them and `toSessionEvent` read them back. */
function asStoredEvents(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => {
    const u = e.usage;
    const usage =
      (u?.inputTokens ?? null) === null && (u?.outputTokens ?? null) === null && (u?.costUsd ?? null) === null
        ? null
        : {
            ...(u?.inputTokens === undefined || u.inputTokens === null ? {} : { inputTokens: u.inputTokens }),
            ...(u?.outputTokens === undefined || u.outputTokens === null ? {} : { outputTokens: u.outputTokens }),
            ...(u?.costUsd === undefined || u.costUsd === null ? {} : { costUsd: u.costUsd }),
            ...(u?.cachedInputTokens === undefined || u.cachedInputTokens === null
              ? {}
              : { cachedInputTokens: u.cachedInputTokens }),
            ...(u?.cacheWriteInputTokens === undefined || u.cacheWriteInputTokens === null
              ? {}
              : { cacheWriteInputTokens: u.cacheWriteInputTokens }),
          };
    return {
      seq: e.seq,
      kind: e.kind,
      name: e.name,
      input: e.input ?? null,
      output: e.output ?? null,
      error: e.error ?? null,
      status: e.status,
      startedAt: e.startedAt ? new Date(e.startedAt).toISOString() : null,
      durationMs: e.durationMs === null ? null : Math.round(e.durationMs),
      usage,
      parentSeq: e.parentSeq,
      cacheKey: e.cacheKey,
      occurrence: e.occurrence,
    };
  });
}

/** Whether a stored session already holds exactly these events (a rebuild would change nothing its replays rely on). */
export function sameEvents(stored: readonly SessionEvent[], events: readonly SessionEvent[]): boolean {
  if (stored.length !== events.length) return false;
  const a = canonicalJson(stored);
  return a !== undefined && a === canonicalJson(asStoredEvents(events));
}
