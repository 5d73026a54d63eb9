/**
 * Any two recorded sessions compared step by step (two runs of one task, before and after a release): the same
 * alignment as a replay's comparison with its base (lib/replay/compare.ts compareRuns over lib/replay/align.ts), the
 * session `sessionId` on the base side and `otherId` on the branch side, read a window at a time.
 *
 * Computed per request, not stored. A replay's comparison is stored because there is one per replay, asked for
 * again and again, and built right after its run. Two sessions are any of n² pairs, most asked for once, with
 * nothing that would say when to build them; a table of them would grow with every look, and would have to be
 * thrown away whenever either session is imported again or a trace export appends to it. The work per request is
 * linear: both sessions are read as one JSON array of digests each (no prompt is read: a model input is its
 * digest), aligned in O(N+M) plus (N+M)·D for D reorderings among steps that can match (see ./align.ts), and
 * written a window at a time. A small memo per process, keyed by both sessions' stamps, spares the alignment while
 * one person scrolls through the windows of one pair; it is a cache only (a stamp read with each request decides).
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { fullEvent, sessionEventRows, toSessionEvent } from "@/lib/db/session-reads";
import { sessionCompareEvents } from "@/lib/db/replay-comparison";
import {
  candidateRows,
  comparedSessions,
  existingSessionIds,
  sessionAgentOf,
  sessionPlainContents,
  type ComparedSession,
} from "@/lib/db/session-compare";
import type { PlainContent } from "@/lib/db/replay-window";
import { listSessions } from "@/lib/db/session-list";
import { AppError, notFound, parseInput } from "@/lib/errors";
import {
  changedPaths,
  compareRuns,
  summarize,
  type ComparisonMetrics,
  type FirstDivergence,
  type SessionEvent,
  type TextDiffPart,
} from "@/lib/replay";
import { sessionLabel } from "@/lib/session-list/labels";
import {
  outlineOfStored,
  pairOutline,
  pairWindow,
  toStoredPairs,
  withPreviews,
  findPair,
  type RowOutline,
  type StoredPair,
} from "@/lib/session-view/compare-pairs";
import {
  COMPARE_FILTERS,
  PAIR_ID,
  type ComparisonPanels,
  shownBy,
  type CompareFilter,
  type CompareRow,
} from "@/lib/session-view/compare-rows";
import { compareFindFields, compareWindowFields } from "@/lib/session-view/compare-input";
import { authorize } from "../authz";
import type { Principal } from "../principal";

const Id = z.string().min(1, "Name the session.").max(200);
const PairId = z.string().regex(PAIR_ID, "not a pair id (p<seq>-<seq>, i<seq> or r<seq>)");
/** Pairs per window of the API's document when none is asked for, and at most. */
export const SESSION_PAIRS_DEFAULT = 100;
export const SESSION_PAIRS_MAX = 1000;

export const SessionPairRef = z.object({ sessionId: Id, otherId: Id });
export type SessionPairRef = z.input<typeof SessionPairRef>;

export const SessionComparisonRowsInput = SessionPairRef.extend(compareWindowFields);
export type SessionComparisonRowsInput = z.input<typeof SessionComparisonRowsInput>;

export const SessionComparisonFindInput = SessionPairRef.extend(compareFindFields(PairId));
export type SessionComparisonFindInput = z.input<typeof SessionComparisonFindInput>;

export const SessionComparisonPairInput = SessionPairRef.extend({ pairId: PairId });
export type SessionComparisonPairInput = z.input<typeof SessionComparisonPairInput>;

/** `GET /api/v1/sessions/:id/compare/:otherId`'s query. */
export const SessionComparisonQuery = z.object({
  from: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(SESSION_PAIRS_MAX).optional(),
  inputs: z.enum(["full", "delta"]).optional(),
});

export const CompareCandidatesInput = z.object({
  sessionId: Id,
  q: z.string().max(200).optional(),
});
export type CompareCandidatesInput = z.input<typeof CompareCandidatesInput>;

export type SessionComparisonCounts = Record<CompareFilter, number>;

/** One session pair's comparison, as the memo keeps it: the pairs' outlines and indexes, never the events. */
interface PairComparison {
  base: ComparedSession;
  branch: ComparedSession;
  pairs: StoredPair[];
  /** The pairs each filter shows, in order (a window is a slice). */
  shown: Record<CompareFilter, StoredPair[]>;
  byId: Map<string, StoredPair>;
  counts: SessionComparisonCounts;
  firstDivergence: FirstDivergence | null;
  metrics: ComparisonMetrics;
  finalOutputDiff: TextDiffPart[] | null;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
}

/** Session pairs aligned since the process started, and the alignment's work (./align.ts AlignStats): what tests count. */
const work = { alignments: 0, steps: 0 };
export const sessionComparisonWork = () => ({ ...work });

const MEMO_SIZE = 4;
const memo = new Map<string, Promise<PairComparison>>();

/** Both sessions, or AppError: 400 for a session compared with itself, 404 for an id that names none. */
async function theTwo(prisma: Db, sessionId: string, otherId: string) {
  if (sessionId === otherId)
    throw new AppError("invalid_input", "Compare a session with another one: both ids name the same session.", [
      { path: "otherId", message: "The same session as the first." },
    ]);
  const found = await comparedSessions(prisma, [sessionId, otherId]);
  const base = found.get(sessionId);
  const branch = found.get(otherId);
  if (!base) throw notFound("session", sessionId);
  if (!branch) throw notFound("session", otherId);
  return { base, branch };
}

/** The pair's comparison as the sessions are now: from the memo when neither changed, else aligned now. */
async function pairComparison(prisma: Db, sessionId: string, otherId: string): Promise<PairComparison> {
  const { base, branch } = await theTwo(prisma, sessionId, otherId);
  const key = `${base.id}\u0000${base.stamp}\u0000${branch.id}\u0000${branch.stamp}`;
  let found = memo.get(key);
  if (found) {
    // Most recently used last.
    memo.delete(key);
    memo.set(key, found);
    return found;
  }
  found = align(prisma, base, branch);
  memo.set(key, found);
  found.catch(() => memo.delete(key));
  while (memo.size > MEMO_SIZE) memo.delete(memo.keys().next().value!);
  return found;
}

async function align(prisma: Db, base: ComparedSession, branch: ComparedSession): Promise<PairComparison> {
  work.alignments++;
  const [a, b] = await Promise.all([sessionCompareEvents(prisma, base.id), sessionCompareEvents(prisma, branch.id)]);
  const stats = { steps: 0 };
  const comparison = compareRuns(a, b, { deltas: false, stats });
  work.steps += stats.steps;
  const pairs = toStoredPairs(comparison.pairs);
  const shown = Object.fromEntries(COMPARE_FILTERS.map((f) => [f, [] as StoredPair[]])) as Record<
    CompareFilter,
    StoredPair[]
  >;
  for (const p of pairs) for (const f of COMPARE_FILTERS) if (shownBy(f, p)) shown[f].push(p);
  const counts = Object.fromEntries(COMPARE_FILTERS.map((f) => [f, shown[f].length])) as SessionComparisonCounts;
  const finalOf = (events: readonly SessionEvent[]) =>
    [...events].reverse().find((e) => e.kind === "final_output")?.output;
  // The first divergence in words needs the two steps' content (which parts of a changed call differ).
  let firstDivergence = comparison.firstDivergence;
  const first = firstDivergence ? comparison.pairs[firstDivergence.pairIndex] : undefined;
  if (firstDivergence && first?.type === "changed") {
    const [x, y] = await Promise.all([
      sessionPlainContents(prisma, base.id, [first.base.seq]),
      sessionPlainContents(prisma, branch.id, [first.branch.seq]),
    ]);
    const whole = (e: SessionEvent, c: PlainContent | undefined): SessionEvent =>
      c ? { ...e, input: e.kind === "model_call" ? e.input : (c.input ?? null), output: c.output ?? null } : e;
    firstDivergence = {
      ...firstDivergence,
      summary: summarize({
        ...first,
        base: whole(first.base, x.get(first.base.seq)),
        branch: whole(first.branch, y.get(first.branch.seq)),
      }),
    };
  }
  return {
    base,
    branch,
    pairs,
    shown,
    byId: new Map(pairs.map((p) => [p.pairId, p])),
    counts,
    firstDivergence,
    metrics: comparison.metrics,
    finalOutputDiff: comparison.finalOutputDiff,
    baseFinalOutput: finalOf(a),
    branchFinalOutput: finalOf(b),
  };
}

/** The rows with their previews, from the content of the steps of both sessions they show. */
function previewRows(prisma: Db, c: PairComparison, rows: readonly RowOutline[]) {
  return withPreviews(rows, async (baseSeqs, branchSeqs) => {
    const [base, branch] = await Promise.all([
      sessionPlainContents(prisma, c.base.id, baseSeqs),
      sessionPlainContents(prisma, c.branch.id, branchSeqs),
    ]);
    return { base, branch };
  });
}

/** A compared session as a page or the API names it. */
export function presentComparedSession(s: ComparedSession) {
  return {
    id: s.id,
    title: s.title,
    externalId: s.externalId,
    agent: s.agentName,
    agentVersion: s.agentVersion,
    status: s.status,
    outcome: s.outcome,
    eventCount: s.eventCount,
    startedAt: s.startedAt?.toISOString() ?? null,
  };
}
export type PresentedComparedSession = ReturnType<typeof presentComparedSession>;

export interface SessionComparisonView extends ComparisonPanels {
  base: PresentedComparedSession;
  branch: PresentedComparedSession;
}

/** The comparison page's header and panels: everything but its rows. */
export async function getSessionComparison(
  principal: Principal,
  input: SessionPairRef,
  prisma: Db,
): Promise<SessionComparisonView> {
  authorize(principal, "sessions.read");
  const { sessionId, otherId } = parseInput(SessionPairRef, input);
  const c = await pairComparison(prisma, sessionId, otherId);
  return {
    base: presentComparedSession(c.base),
    branch: presentComparedSession(c.branch),
    baseCount: c.base.eventCount,
    branchCount: c.branch.eventCount,
    baseFinalOutput: c.baseFinalOutput,
    branchFinalOutput: c.branchFinalOutput,
    metrics: c.metrics,
    firstDivergence: c.firstDivergence,
    counts: c.counts,
  };
}

/** One window of the rows a filter shows: positions [cursor, cursor + limit), as the replay comparison's. */
export async function listSessionComparisonRows(principal: Principal, input: SessionComparisonRowsInput, prisma: Db) {
  authorize(principal, "sessions.read");
  const { sessionId, otherId, filter, cursor = 0, limit } = parseInput(SessionComparisonRowsInput, input);
  const c = await pairComparison(prisma, sessionId, otherId);
  const total = c.counts[filter];
  const shown = c.shown[filter].slice(cursor, cursor + limit).map(outlineOfStored);
  return {
    filter,
    cursor,
    nextCursor: cursor + limit < total ? cursor + limit : null,
    total,
    rows: await previewRows(prisma, c, shown),
  };
}

/**
 * A row by pair id among the rows a filter shows (null when it does not show it), or with `direction` the next or
 * previous change from it (from the top or the bottom without a pair; null when there is none that way).
 */
export async function findSessionComparisonRow(
  principal: Principal,
  input: SessionComparisonFindInput,
  prisma: Db,
): Promise<{ position: number; row: CompareRow } | null> {
  authorize(principal, "sessions.read");
  const { sessionId, otherId, filter, pair, direction } = parseInput(SessionComparisonFindInput, input);
  const c = await pairComparison(prisma, sessionId, otherId);
  const from = pair === undefined ? undefined : c.byId.get(pair);
  const found = await findPair(filter, from, direction, c.counts, (among, k) => c.shown[among][k]);
  if (!found) return null;
  const [row] = await previewRows(prisma, c, [outlineOfStored(found.pair)]);
  return { position: found.position, row: row! };
}

/** Both sides of one aligned pair with their full inputs, and the paths at which they differ. */
export async function getSessionComparisonPair(principal: Principal, input: SessionComparisonPairInput, prisma: Db) {
  authorize(principal, "sessions.read");
  const { sessionId, otherId, pairId } = parseInput(SessionComparisonPairInput, input);
  const c = await pairComparison(prisma, sessionId, otherId);
  const pair = c.byId.get(pairId);
  if (!pair) throw notFound("pair", pairId);
  const [baseRow, branchRow] = await Promise.all([
    pair.baseSeq === null ? null : fullEvent(prisma, sessionId, pair.baseSeq),
    pair.branchSeq === null ? null : fullEvent(prisma, otherId, pair.branchSeq),
  ]);
  const base = baseRow ? toSessionEvent(baseRow) : null;
  const branch = branchRow ? toSessionEvent(branchRow) : null;
  return { base, branch, changedPaths: changedPaths(base, branch) };
}

/**
 * The API's document of a window of the comparison (pairs at positions [from, from + limit)): its head and tail,
 * the window's pairs, and both sessions' rows from where the window needs them (with whole model inputs, from each
 * session's start: a model input is rebuilt from the inputs before it, whose text is not made).
 */
export async function openSessionComparisonWindow(
  principal: Principal,
  input: SessionPairRef & { from?: number; limit?: number; inputs?: "full" | "delta" },
  prisma: Db,
) {
  authorize(principal, "sessions.read");
  const { sessionId, otherId } = parseInput(SessionPairRef, input);
  const { from = 0, limit = SESSION_PAIRS_DEFAULT, inputs = "full" } = parseInput(SessionComparisonQuery, input);
  const c = await pairComparison(prisma, sessionId, otherId);
  const total = c.pairs.length;
  const pairs = c.pairs.slice(from, from + limit).map(pairOutline);
  const firstBase = inputs === "delta" ? pairs.find((p) => p.baseIndex !== null) : undefined;
  const firstBranch = inputs === "delta" ? pairs.find((p) => p.branchIndex !== null) : undefined;
  return {
    document: {
      head: {
        sessionId,
        otherSessionId: otherId,
        base: presentComparedSession(c.base),
        branch: presentComparedSession(c.branch),
        firstDivergence: c.firstDivergence,
      },
      tail: {
        finalOutputDiff: c.finalOutputDiff,
        metrics: c.metrics,
        counts: c.counts,
        window: pairWindow(from, limit, total),
      },
      pairs,
    },
    baseRows: sessionEventRows(prisma, sessionId, undefined, firstBase?.baseSeq ?? undefined),
    otherRows: sessionEventRows(prisma, otherId, undefined, firstBranch?.branchSeq ?? undefined),
    start: { base: firstBase?.baseIndex ?? 0, branch: firstBranch?.branchIndex ?? 0 },
    inputs,
  };
}

/** A session the "Compare with…" picker offers. */
export interface CompareCandidate {
  id: string;
  label: string;
  agent: string;
  startedAt: string | null;
  status: string;
  outcome: string | null;
  eventCount: number;
  sameAgent: boolean;
}

/**
 * Sessions to compare `sessionId` with: without `q`, the latest runs of the same agent; with `q`, the session it
 * names by id, then those whose title or text holds it (the same agent's first). Never the session itself.
 */
export async function compareCandidates(
  principal: Principal,
  input: CompareCandidatesInput,
  prisma: Db,
): Promise<{ candidates: CompareCandidate[] }> {
  authorize(principal, "sessions.read");
  const { sessionId, q } = parseInput(CompareCandidatesInput, input);
  const self = await sessionAgentOf(prisma, sessionId);
  if (!self) throw notFound("session", sessionId);
  const query = q?.trim() ?? "";
  const take = 12;
  const lists = query
    ? await Promise.all([
        existingSessionIds(prisma, [query]),
        listSessions(prisma, { q: query, agent: self.agentName, limit: take }).then((r) => r.sessions.map((s) => s.id)),
        listSessions(prisma, { q: query, limit: take }).then((r) => r.sessions.map((s) => s.id)),
      ])
    : [(await listSessions(prisma, { agent: self.agentName, limit: take + 1 })).sessions.map((s) => s.id)];
  const ids = [...new Set(lists.flat())].filter((id) => id !== sessionId).slice(0, take);
  const rows = await candidateRows(prisma, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    candidates: ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      return [
        {
          id: r.id,
          label: sessionLabel(r),
          agent: r.agent.name,
          startedAt: r.startedAt?.toISOString() ?? null,
          status: r.status,
          outcome: r.outcome,
          eventCount: r.eventCount,
          sameAgent: r.agentId === self.agentId,
        },
      ];
    }),
  };
}
