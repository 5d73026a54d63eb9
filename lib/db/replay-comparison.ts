/** The comparison page's view of a replay: the same comparison without the models' prompts, over digests. */
import {
  alignEvents,
  compareRuns,
  summarize,
  type Comparison,
  type FirstDivergence,
  type SessionEvent,
  type StepSource,
} from "@/lib/replay";
import type { DbClient } from "./client";
import type { RawSql } from "./sql";
import { Prisma } from "./generated/client";
import { inputDigests } from "@/lib/sessions/inputs";
import { withFullInputs } from "./session-reads";
import { plainContents, type PlainContent } from "./replay-window";
import { loadReplayMeta, type PageEvidence, type ReplayMeta } from "./replays";
import { withFullStepInputs } from "./replay-steps";

// ---------------------------------------------------------------------------
// The comparison page's view: the same comparison without the models' prompts.

/** The comparison page's data: the replay's meta, step counts, both final outputs and the comparison. */
export interface ReplayComparisonView extends ReplayMeta {
  baseCount: number;
  branchCount: number;
  baseFinalOutput: unknown;
  branchFinalOutput: unknown;
  /**
   * Aligned as `compareRuns` aligns; in its pairs an `input` or `output` is a content digest (`{ digest }`), not the
   * value (a final output's is the value), and a changed pair has no `delta`: fetch a pair in full to see either.
   */
  comparison: ReturnType<typeof compareRuns>;
}

/** As a page reads it: the evidence without its input-drift list (see loadReplayMeta). */
export type ReplayPageComparisonView = Omit<ReplayComparisonView, "evidence"> & { evidence: PageEvidence };

export type LiteRow = {
  /** A model call's input is there (not null); its digest stands for it. */
  hasInput?: boolean;
  /** md5 of the output and of an input that is not a model call's (database-generated; null: no value). */
  outputDigest: string | null;
  plainInputDigest: string | null;
  seq: number;
  kind: string;
  name: string;
  status: string;
  cacheKey: string | null;
  inputDigest: string | null;
  /** A final output's (the others: their digest). */
  output: unknown;
  error: unknown;
  durationMs: number | null;
  usage: SessionEvent["usage"];
};
export type LiteStepRow = LiteRow & {
  source: string;
  baseSeq: number | null;
  equalsBase: boolean | null;
};

/**
 * What the comparison needs from one row. Neither its input nor its output is
 * read (a model call's input is its whole prompt window, the outputs and tool
 * arguments the rest of a run's bytes): a digest stands for each, the model
 * input's fingerprint and the database's md5 of the others' `jsonb::text`.
 * That text orders keys and drops whitespace, but keeps a number as written
 * (`1.0` and `1` give different digests): digests are equal for equal values
 * written as the app writes JSON (JSON.stringify of parsed values, see
 * stepRows and saveImportedSessions). compareRuns tests them for
 * equality only; a final output, whose text it diffs, is read whole. What a
 * row shows, and the first divergence's words, are read apart for the few
 * steps concerned (lib/db/replay-window.ts plainContents). Nor are a step's
 * start, parent and occurrence, which no comparison reads (null here).
 */
function liteEvent(r: LiteRow): SessionEvent {
  const digest = (d: string | null) => (d === null ? null : { digest: d });
  return {
    seq: r.seq,
    kind: r.kind as SessionEvent["kind"],
    name: r.name,
    input: r.kind === "model_call" ? digest(r.inputDigest) : digest(r.plainInputDigest),
    output: r.kind === "final_output" ? (r.output ?? null) : digest(r.outputDigest),
    error: (r.error as SessionEvent["error"]) ?? null,
    status: r.status as SessionEvent["status"],
    startedAt: null,
    durationMs: r.durationMs,
    usage: r.usage && Object.keys(r.usage).length > 0 ? r.usage : null,
    parentSeq: null,
    cacheKey: r.cacheKey,
    occurrence: null,
  };
}

type Digest = { seq: number; inputDigest: string | null };

/** An event row's usage from its token and cost columns, those that are set. */
function usageOf(r: {
  inputTokens?: number | null;
  outputTokens?: number | null;
  costUsd?: number | null;
}): SessionEvent["usage"] {
  const usage: NonNullable<SessionEvent["usage"]> = {};
  if (r.inputTokens !== null && r.inputTokens !== undefined) usage.inputTokens = r.inputTokens;
  if (r.outputTokens !== null && r.outputTokens !== undefined) usage.outputTokens = r.outputTokens;
  if (r.costUsd !== null && r.costUsd !== undefined) usage.costUsd = r.costUsd;
  return usage;
}

/**
 * The digests of a run's model inputs at `seqs`: the stored ones, and for rows
 * stored without one, computed from the run's full inputs.
 */
async function digestsOf(
  stored: readonly Digest[],
  seqs: readonly number[],
  all: () => Promise<{ seq: number; kind: string; input: unknown }[]>,
): Promise<Digest[]> {
  if (stored.length === seqs.length && stored.every((d) => d.inputDigest !== null)) return [...stored];
  const rows = await all();
  const digests = inputDigests(rows);
  const wanted = new Set(seqs);
  return rows.flatMap((r, i) => (wanted.has(r.seq) ? [{ seq: r.seq, inputDigest: digests[i] ?? null }] : []));
}

async function eventDigests(client: DbClient, sessionId: string, seqs: readonly number[]): Promise<Digest[]> {
  const stored = await client.event.findMany({
    where: { sessionId, seq: { in: [...seqs] }, input: { not: Prisma.AnyNull } },
    select: { seq: true, inputDigest: true },
  });
  const present = new Set(stored.map((d) => d.seq));
  const nulls = seqs.filter((q) => !present.has(q)).map((seq) => ({ seq, inputDigest: null }));
  const found = await digestsOf(
    stored,
    stored.map((d) => d.seq),
    async () =>
      withFullInputs(
        await client.event.findMany({
          where: { sessionId, kind: "model_call" },
          orderBy: { seq: "asc" },
          select: { seq: true, kind: true, input: true, inputPrefixSeq: true, inputPrefixCount: true },
        }),
      ),
  );
  return [...found, ...nulls];
}

async function stepDigests(client: DbClient, replayId: string, idxs: readonly number[]): Promise<Digest[]> {
  const stored = await client.replayStep.findMany({
    where: { replayId, idx: { in: [...idxs] }, input: { not: Prisma.AnyNull } },
    select: { idx: true, inputDigest: true },
  });
  const present = new Set(stored.map((d) => d.idx));
  const nulls = idxs.filter((q) => !present.has(q)).map((seq) => ({ seq, inputDigest: null }));
  const found = await digestsOf(
    stored.map((d) => ({ seq: d.idx, inputDigest: d.inputDigest })),
    stored.map((d) => d.idx),
    async () =>
      withFullStepInputs(
        await client.replayStep.findMany({ where: { replayId, kind: "model_call" }, orderBy: { idx: "asc" } }),
      ).map((r) => ({ seq: r.idx, kind: r.kind, input: r.input })),
  );
  return [...found, ...nulls];
}

/**
 * The columns both runs' rows are read with, in order (see loadReplayComparison): the database functions
 * session_lite_rows and replay_step_lite_rows (migration 20261210010000) answer them. A model call stored without a
 * digest has an input when its stored input is not null (tested only there: reading a model input costs its whole
 * prompt window).
 */
type LiteTuple = [
  seq: number,
  kind: string,
  name: string,
  status: string,
  cacheKey: string | null,
  error: unknown,
  finalOutput: unknown,
  outputDigest: string | null,
  plainInputDigest: string | null,
  inputDigest: string | null,
  hasInput: boolean,
  durationMs: number | null,
];
type BaseTuple = [...LiteTuple, inputTokens: number | null, outputTokens: number | null, costUsd: number | null];
type StepTuple = [
  ...LiteTuple,
  source: string,
  baseSeq: number | null,
  equalsBase: boolean,
  usage: SessionEvent["usage"],
];

function liteRow(t: LiteTuple | BaseTuple | StepTuple, usage: SessionEvent["usage"]): LiteRow {
  return {
    seq: t[0],
    kind: t[1],
    name: t[2],
    status: t[3],
    cacheKey: t[4],
    error: t[5],
    output: t[6],
    outputDigest: t[7],
    plainInputDigest: t[8],
    inputDigest: t[9],
    hasInput: t[10],
    durationMs: t[11],
    usage,
  };
}
const baseLiteRow = (t: BaseTuple): LiteRow =>
  liteRow(t, usageOf({ inputTokens: t[12], outputTokens: t[13], costUsd: t[14] }));
const stepLiteRow = (t: StepTuple): LiteStepRow =>
  Object.assign(liteRow(t, t[15]), { source: t[12], baseSeq: t[13], equalsBase: t[14] });

/**
 * One query answering a JSON array of rows: one value to parse instead of 5,000 rows through the driver. Each
 * row an array, not an object: the embedded database builds an array of 18 values in a fraction of the time it
 * takes to build an object with their 18 keys.
 */
async function jsonRows<T>(client: DbClient, query: Prisma.Sql): Promise<T[]> {
  const [row] = await client.$queryRaw<{ rows: string | null }[]>(query);
  return row?.rows ? (JSON.parse(row.rows) as T[]) : [];
}

/** A session's events as a comparison reads them (see liteEvent), in seq order: one query, one JSON array. */
export async function sessionLiteRows(client: DbClient, sessionId: string): Promise<LiteRow[]> {
  const rows = await jsonRows<BaseTuple>(client, Prisma.sql`SELECT session_lite_rows(${sessionId}::text) AS rows`);
  return rows.map(baseLiteRow);
}

/**
 * What a run's transaction builds the replay's comparison from, in one statement: the replay's stamp (as
 * replayStamp's: status, step count, steps version, base and its event count), whether it has a stored comparison,
 * and both runs' rows as compareStoredRuns reads them. Null: no such replay.
 */
export async function replayComparisonInputs(client: RawSql, replayId: string): Promise<ComparisonInputs | null> {
  const [row] = await client.$queryRaw<
    ComparisonInputsRow[]
  >`SELECT * FROM replay_comparison_inputs(${replayId}::text)`;
  return row ? comparisonInputsOf(row) : null;
}

/**
 * What a comparison is built from as one row answers it: the replay's stamp, whether it has a stored comparison
 * (`stored`), and both runs' rows as JSON text (session_lite_rows, replay_step_lite_row). Answered by
 * replay_comparison_inputs, or by the statement that stores a fresh run's steps (lib/db/replay-writes.ts).
 */
export type ComparisonInputsRow = {
  status: string;
  stepCount: number;
  stepsVersion: number;
  sessionId: string;
  eventCount: number;
  stored: boolean;
  base: string | null;
  steps: string | null;
};

export type ComparisonInputs = ReturnType<typeof comparisonInputsOf>;

/** What a comparison is built from, from its row. */
export function comparisonInputsOf(row: ComparisonInputsRow) {
  return {
    stamp: {
      status: row.status,
      sessionId: row.sessionId,
      stepsKey: `${row.stepsVersion}:${row.stepCount}:${row.eventCount}`,
    },
    stored: row.stored,
    baseRows: row.base ? (JSON.parse(row.base) as BaseTuple[]).map(baseLiteRow) : [],
    stepRows: row.steps ? (JSON.parse(row.steps) as StepTuple[]).map(stepLiteRow) : [],
  };
}

/**
 * A session's events as a comparison of two sessions reads them: each input and output a digest (a final output
 * whole), a model call's input the digest of its full input, so that equal prompts in two runs compare equal. Rows
 * stored before digests existed (none after the start-up migration) get theirs from their full inputs.
 */
export async function sessionCompareEvents(client: DbClient, sessionId: string): Promise<SessionEvent[]> {
  const rows = await sessionLiteRows(client, sessionId);
  const events = rows.map(liteEvent);
  const missing = rows.filter((r) => r.kind === "model_call" && r.inputDigest === null && r.hasInput === true);
  if (missing.length === 0) return events;
  const found = await eventDigests(
    client,
    sessionId,
    missing.map((r) => r.seq),
  );
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  for (const d of found) {
    const e = bySeq.get(d.seq);
    if (e) e.input = d.inputDigest === null ? null : { digest: d.inputDigest };
  }
  return events;
}

/**
 * The comparison page's data without reading the models' prompts: both
 * sequences are read as one JSON array each (no per-row mapping of 10,000
 * rows), a model call's input as a digest. Same pairs, types, first divergence
 * and metrics as the whole runs' (`loadReplayView`, lib/db/replays-testing.ts: lib/server/replays/replays.db.test.ts
 * checks it); a pair's full events come from `comparisonPairAction`.
 */
export async function loadReplayComparison(client: DbClient, replayId: string): Promise<ReplayComparisonView | null>;
export async function loadReplayComparison(
  client: DbClient,
  replayId: string,
  options: { inputDrift: false },
): Promise<ReplayPageComparisonView | null>;
export async function loadReplayComparison(
  client: DbClient,
  replayId: string,
  options: { inputDrift?: false } = {},
): Promise<ReplayComparisonView | ReplayPageComparisonView | null> {
  // With `{ inputDrift: false }` the evidence's input-drift list (an entry per drifted model step) is not read.
  const meta =
    options.inputDrift === false
      ? await loadReplayMeta(client, replayId, { inputDrift: false })
      : await loadReplayMeta(client, replayId);
  if (!meta) return null;
  return { ...meta, ...(await compareStoredRuns(client, meta.replay)) };
}

/** What loadReplayComparison adds to the replay's meta: both runs' counts and final outputs, and the comparison. */
export type StoredRunsComparison = Pick<
  ReplayComparisonView,
  "baseCount" | "branchCount" | "baseFinalOutput" | "branchFinalOutput" | "comparison"
>;

/**
 * The comparison of a replay's stored steps with its base, as loadReplayComparison makes it, without the replay's
 * meta: what storing the comparison needs (lib/server/replays/comparison-store.ts), read with `client` (a run's
 * transaction reads the steps it just wrote).
 */
export async function compareStoredRuns(
  client: DbClient,
  replay: { id: string; sessionId: string; status: string },
): Promise<StoredRunsComparison> {
  const [baseRows, stepRowsFound] = await Promise.all([
    sessionLiteRows(client, replay.sessionId),
    jsonRows<StepTuple>(client, Prisma.sql`SELECT replay_step_lite_rows(${replay.id}::text) AS rows`).then((rows) =>
      rows.map(stepLiteRow),
    ),
  ]);
  return compareLiteRows(client, replay, baseRows, stepRowsFound);
}

/** Every model input of both runs has its stored digest (every row since the start-up migration). */
const allDigested = (baseRows: readonly LiteRow[], stepRows: readonly LiteStepRow[]) =>
  [...baseRows, ...stepRows].every((r) => r.kind !== "model_call" || r.hasInput !== true || r.inputDigest !== null);

const stepEvents = (stepRows: readonly LiteStepRow[]) =>
  stepRows.map((r) =>
    Object.assign(liteEvent(r), {
      source: r.source as StepSource,
      baseSeq: r.baseSeq,
      equalsBase: r.equalsBase === true,
    }),
  );

/** compareLiteRows when every model input has its stored digest (raw statements only); else null. */
export async function compareDigestedRows(
  client: RawSql,
  replay: { id: string; sessionId: string; status: string },
  baseRows: LiteRow[],
  stepRowsFound: LiteStepRow[],
): Promise<StoredRunsComparison | null> {
  if (!allDigested(baseRows, stepRowsFound)) return null;
  return finishComparison(client, replay, baseRows.map(liteEvent), stepEvents(stepRowsFound));
}

/** compareStoredRuns over both runs' rows as read (sessionLiteRows and the steps', or replayComparisonInputs). */
async function compareLiteRows(
  client: DbClient,
  replay: { id: string; sessionId: string; status: string },
  baseRows: LiteRow[],
  stepRowsFound: LiteStepRow[],
): Promise<StoredRunsComparison> {
  const digested = await compareDigestedRows(client, replay, baseRows, stepRowsFound);
  if (digested) return digested;
  const replayId = replay.id;
  // Rows stored before digests: only non-vouching steps' digests are used as read; the others are found below.
  for (const r of baseRows) r.inputDigest = null;
  for (const r of stepRowsFound) if (r.equalsBase === true) r.inputDigest = null;
  const base = baseRows.map(liteEvent);
  const steps = stepEvents(stepRowsFound);

  // Model calls paired with a branch step that does not vouch for its equality are compared by digest:
  // read the digests not read yet (the base side, and a vouching step aligned with another base event).
  const baseNeeded: number[] = [];
  const branchNeeded: number[] = [];
  for (const p of alignEvents(base, steps, { deltas: false })) {
    if (p.type !== "equal" && p.type !== "changed") continue;
    if (p.base.kind !== "model_call") continue;
    if (p.branch.equalsBase === true && p.branch.baseSeq === p.base.seq) continue;
    baseNeeded.push(p.base.seq);
    if (p.branch.equalsBase === true) branchNeeded.push(p.branch.seq);
  }
  const withDigest = (
    events: readonly SessionEvent[],
    found: readonly { seq: number; inputDigest: string | null }[],
  ) => {
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    for (const d of found) {
      const e = bySeq.get(d.seq);
      if (e) e.input = d.inputDigest === null ? null : { digest: d.inputDigest };
    }
  };
  // Rows stored before digests existed (none after the start-up migration) get theirs from their full inputs.
  const missing = stepRowsFound.filter((r) => r.kind === "model_call" && r.inputDigest === null && r.hasInput === true);
  if (missing.length > 0)
    withDigest(
      steps,
      await stepDigests(
        client,
        replayId,
        missing.map((r) => r.seq),
      ),
    );
  const [baseDigests, branchDigests] = await Promise.all([
    baseNeeded.length === 0 ? [] : eventDigests(client, replay.sessionId, baseNeeded),
    branchNeeded.length === 0 ? [] : stepDigests(client, replayId, branchNeeded),
  ]);
  withDigest(base, baseDigests);
  withDigest(steps, branchDigests);
  return finishComparison(client, replay, base, steps);
}

async function finishComparison(
  client: RawSql,
  replay: { id: string; sessionId: string; status: string },
  base: SessionEvent[],
  steps: ReturnType<typeof stepEvents>,
): Promise<StoredRunsComparison> {
  const finalOf = (events: readonly SessionEvent[]) =>
    [...events].reverse().find((e) => e.kind === "final_output")?.output;
  const comparison = compareRuns(base, steps, { branchComplete: replay.status === "completed", deltas: false });
  return {
    baseCount: base.length,
    branchCount: steps.length,
    baseFinalOutput: finalOf(base),
    branchFinalOutput: finalOf(steps),
    comparison: {
      ...comparison,
      firstDivergence: await withSummaryInWords(client, replay, comparison),
    },
  };
}

/**
 * The first divergence with its summary from the two steps' content: which
 * parts of a changed pair differ (a tool call's arguments or the rest of its
 * input, its result) needs more than the digests say. Reads those two rows.
 */
async function withSummaryInWords(
  client: RawSql,
  replay: { id: string; sessionId: string },
  comparison: Comparison,
): Promise<FirstDivergence | null> {
  const first = comparison.firstDivergence;
  if (!first) return null;
  const pair = comparison.pairs[first.pairIndex];
  if (pair?.type !== "changed") return first;
  const { base, branch } = await plainContents(
    client,
    { sessionId: replay.sessionId, replayId: replay.id },
    [pair.base.seq],
    [pair.branch.seq],
  );
  const whole = <E extends SessionEvent>(e: E, c: PlainContent | undefined): E =>
    c ? { ...e, input: e.kind === "model_call" ? e.input : (c.input ?? null), output: c.output ?? null } : e;
  return {
    ...first,
    summary: summarize({
      ...pair,
      base: whole(pair.base, base.get(pair.base.seq)),
      branch: whole(pair.branch, branch.get(pair.branch.seq)),
    }),
  };
}
