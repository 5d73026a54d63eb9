/**
 * `GET /api/v1/replays/:id` and `/comparison` as JSON text in pieces: the same
 * documents, byte for byte, as `presentReplay` and `presentComparison` make
 * from a whole `ReplayView`, but written a step at a time from the rows in
 * their STORED form, read a window at a time (full inputs rebuilt as the rows
 * go by, from the latest model call's messages: lib/sessions/inputs.ts
 * fullInputJson). Neither run, nor any list of full inputs, is ever held.
 *
 * `inputs: "delta"`: each model call's input as stored (the messages it adds)
 * with `inputPrefix: { seq, count }` after the step's other fields, as
 * `GET /api/v1/sessions/:id?inputs=delta` gives them: the document then grows
 * with the run, not with its square.
 */
import type { ReplayMeta } from "@/lib/db/replays";
import { toReplayStep } from "@/lib/db/replay-steps";
import { RunChanged, type StoredReplayStepRow } from "@/lib/db/replay-rows";
import { toSessionEvent, type SessionWithEvents } from "@/lib/db/session-reads";
import { fullInputJson } from "@/lib/sessions/inputs";
import {
  eventDelta,
  isBaseOnly,
  type AlignedPair,
  type Comparison,
  type PolicyIssue,
  type SessionEvent,
} from "@/lib/replay";
import { presentReplay } from "./present";

export { RunChanged };
export type InputsForm = "full" | "delta";
/** `?steps=`: "all" (default) writes every step; "none" the replay's summary without them. */
export type StepsForm = "all" | "none";
type EventRow = SessionWithEvents["events"][number];
type Prefix = { seq: number; count: number } | null;

/**
 * The JSON text of `{ [name]: whole }` cut around its key `key`: the text
 * before that key's value (ending with `"key":`) and the text after it.
 * Each part is stringified on its own, so no value elsewhere can be mistaken
 * for the cut.
 */
function cutAround(name: string, whole: Record<string, unknown>, key: string): [string, string] {
  const keys = Object.keys(whole);
  const at = keys.indexOf(key);
  const before = Object.fromEntries(keys.slice(0, at).map((k) => [k, whole[k]]));
  const after = Object.fromEntries(keys.slice(at + 1).map((k) => [k, whole[k]]));
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  const open = `{${JSON.stringify(name)}:${head === "{}" ? "{" : `${head.slice(0, -1)},`}${JSON.stringify(key)}:`;
  const close = `${tail === "{}" ? "" : `,${tail.slice(1, -1)}`}}}`;
  return [open, close];
}

/** An object's JSON text with `input` (after seq, kind, name) given as text: the key order of toSessionEvent and toReplayStep. */
function withInputText(
  event: { seq: number; kind: string; name: string; input: unknown },
  inputText: string,
  extra: object = {},
) {
  const { seq, kind, name, input: _input, ...rest } = event;
  void _input;
  const after = JSON.stringify({ ...rest, ...extra });
  return `${JSON.stringify({ seq, kind, name }).slice(0, -1)},"input":${inputText}${after === "{}" ? "}" : `,${after.slice(1)}`}`;
}

const eventPrefix = (r: EventRow): Prefix =>
  r.inputPrefixSeq === null ? null : { seq: r.inputPrefixSeq, count: r.inputPrefixCount ?? 0 };
const stepPrefix = (r: StoredReplayStepRow): Prefix =>
  r.inputPrefixIdx === null ? null : { seq: r.inputPrefixIdx, count: r.inputPrefixCount ?? 0 };

/** Writes one run's rows (in order, every one of them) as events: each row's JSON text, and the value it stands for. */
function runWriter<R>(
  inputs: InputsForm,
  read: (row: R) => { event: SessionEvent; seq: number; kind: string; prefix: Prefix; stored: unknown },
) {
  const fullInput = inputs === "delta" ? null : fullInputJson();
  // `skip`: a row read only for the rows after it (a window further on): its text is not made.
  return (row: R, skip = false) => {
    const { event, seq, kind, prefix, stored } = read(row);
    if (skip) {
      fullInput?.({ seq, kind, input: stored, prefix }, { skip: true });
      return { text: "", value: () => event };
    }
    const inputText = fullInput ? fullInput({ seq, kind, input: stored, prefix }) : JSON.stringify(event.input);
    const text = withInputText(event, inputText, inputs === "delta" ? { inputPrefix: prefix } : {});
    // The value as the whole presenter had it, for a changed pair's delta: the full input parsed back only when it was rebuilt.
    const value = (): SessionEvent =>
      fullInput && prefix !== null ? { ...event, input: JSON.parse(inputText) as unknown } : event;
    return { text, value };
  };
}

const eventWriter = (inputs: InputsForm) =>
  runWriter<EventRow>(inputs, (r) => ({
    event: toSessionEvent(r),
    seq: r.seq,
    kind: r.kind,
    prefix: eventPrefix(r),
    stored: r.input,
  }));

const stepWriter = (inputs: InputsForm) =>
  runWriter<StoredReplayStepRow>(inputs, (r) => ({
    event: toReplayStep(r),
    seq: r.idx,
    kind: r.kind,
    prefix: stepPrefix(r),
    stored: r.input,
  }));

/**
 * `JSON.stringify({ replay: { ...presentReplay(view, warnings), ...extra }, ...after })`
 * from the replay's meta and its step rows in idx order, in pieces.
 *
 * One read of the replay: exactly `meta.replay.stepCount` rows are written,
 * idx 0, 1, 2, … in turn, and `unchanged` (when given) is awaited after the
 * last of them. A run that stores its steps while they are read (fewer rows,
 * a gap, or the replay's stamp moved) throws RunChanged, so the body is cut
 * instead of mixing the meta of one run with the steps of another.
 */
export async function* presentReplayJson(
  meta: ReplayMeta,
  steps: AsyncIterable<StoredReplayStepRow>,
  extra: Record<string, unknown> = {},
  opts: {
    inputs?: InputsForm;
    warnings?: readonly PolicyIssue[];
    after?: Record<string, unknown>;
    /** Throws RunChanged when the replay is not as it was when `meta` was read. */
    unchanged?: () => Promise<void>;
    /** "none": the summary, `stepCount` where `steps` would be, and no step read. */
    steps?: StepsForm;
  } = {},
): AsyncGenerator<string> {
  const whole = { ...presentReplay({ ...meta, steps: [] }, opts.warnings), ...extra };
  if (opts.steps === "none") {
    const summary = Object.entries(whole).map(([k, v]): [string, unknown] =>
      k === "steps" ? ["stepCount", meta.replay.stepCount] : [k, v],
    );
    yield JSON.stringify({ replay: Object.fromEntries(summary), ...opts.after });
    return;
  }
  const [open, replayClose] = cutAround("replay", whole, "steps");
  // The keys after `replay` go before the document's closing brace (`JSON.stringify` leaves out undefined values).
  const after = JSON.stringify(opts.after ?? {});
  const close = after === "{}" ? replayClose : `${replayClose.slice(0, -1)},${after.slice(1)}`;
  yield `${open}[`;
  const write = stepWriter(opts.inputs ?? "full");
  const count = meta.replay.stepCount;
  let written = 0;
  if (count > 0) {
    for await (const row of steps) {
      if (row.idx !== written) throw new RunChanged(`the branch's row ${written} is idx ${row.idx}`);
      yield `${written === 0 ? "" : ","}${write(row).text}`;
      if (++written === count) break;
    }
  }
  if (written !== count) throw new RunChanged(`the branch has ${written} of its ${count} steps`);
  await opts.unchanged?.();
  yield `]${close}`;
}

/** A pair as the document writes it: its type and where its two steps are in both runs. */
export interface PairOutline {
  id: string;
  type: AlignedPair["type"];
  baseSeq: number | null;
  baseIndex: number | null;
  branchSeq: number | null;
  branchIndex: number | null;
}

const outlineOfPair = (p: AlignedPair | PairOutline): PairOutline =>
  "baseSeq" in p
    ? p
    : {
        id: p.id,
        type: p.type,
        baseSeq: p.type === "inserted" ? null : p.base.seq,
        baseIndex: p.type === "inserted" ? null : p.baseIndex,
        branchSeq: isBaseOnly(p) ? null : p.branch.seq,
        branchIndex: isBaseOnly(p) ? null : p.branchIndex,
      };

/** Where a window of the comparison's pairs is: `pairs` holds those at positions [from, from + limit). */
export interface PairsWindow {
  from: number;
  limit: number;
  /** Pairs in the whole comparison. */
  total: number;
  /** Where the next window starts, null after the last. */
  nextFrom: number | null;
}

/** What the streamed comparison is written from: the replay's meta and the comparison's structure. */
export interface ComparisonOutline extends ReplayMeta {
  /**
   * Pairs, types, first divergence, final output diff and metrics, as
   * compareRuns gives them for the two runs (a pair's events need only their
   * seqs: they are written from the rows; a changed pair's delta is computed
   * again from them), or a window of the pairs as stored.
   */
  comparison: Pick<Comparison, "firstDivergence" | "finalOutputDiff" | "metrics"> & {
    pairs: readonly (AlignedPair | PairOutline)[];
  };
  /** A window of the pairs (`?from=&limit=`), named in the document after the comparison's own keys. */
  window?: PairsWindow;
}

/**
 * Reads `rows` in order up to the one at `index` (each read row is handed to `write`, those before it as skipped),
 * and returns that row's writing. `start`: the index of the first of `rows` (a read that begins further on).
 */
function cursor<R, W>(
  rows: AsyncIterable<R>,
  write: (row: R, skip: boolean) => W,
  seqOf: (row: R) => number,
  what: string,
  start = 0,
) {
  const iterator = rows[Symbol.asyncIterator]();
  let read = start;
  return {
    async at(index: number, seq: number): Promise<W> {
      if (index < read) throw new RunChanged(`the ${what} was read past its row ${index}`);
      for (;;) {
        const next = await iterator.next();
        if (next.done) throw new RunChanged(`the ${what} has no row ${index} any more`);
        const at = read++;
        const written = write(next.value, at !== index);
        if (at !== index) continue;
        if (seqOf(next.value) !== seq) throw new RunChanged(`the ${what}'s row ${index} is not seq ${seq} any more`);
        return written;
      }
    },
    async close() {
      await iterator.return?.();
    },
  };
}

/** A side's rows as `cursor` reads them: each row's JSON text, and the value it stands for. */
type SideCursor = { at(index: number, seq: number): Promise<{ text: string; value: () => SessionEvent }> };

/**
 * The pairs of a comparison as the elements of its JSON array (without the brackets), each pair's two sides
 * written from their rows as they are read, a changed pair's delta computed from them.
 */
async function* pairsJson(pairs: Iterable<PairOutline>, base: SideCursor, branch: SideCursor): AsyncGenerator<string> {
  let comma = "";
  for (const p of pairs) {
    const b = p.baseIndex === null ? null : await base.at(p.baseIndex, p.baseSeq!);
    const s = p.branchIndex === null ? null : await branch.at(p.branchIndex, p.branchSeq!);
    const head = JSON.stringify({ id: p.id, type: p.type, baseSeq: p.baseSeq, branchSeq: p.branchSeq });
    let text = `${head.slice(0, -1)},"base":${b ? b.text : "null"},"branch":${s ? s.text : "null"}`;
    if (p.type === "changed" && b && s) {
      const delta = JSON.stringify(eventDelta(b.value(), s.value()));
      if (delta !== undefined) text += `,"delta":${delta}`;
    }
    yield `${comma}${text}}`;
    comma = ",";
  }
}

/**
 * `JSON.stringify({ comparison: { ...presentComparison(view), ...extra } })`
 * from the comparison's outline and both runs' rows in order, in pieces: a
 * pair's base event and branch step are written from their rows as they are
 * read (pairs come in the order of both runs: see compareRuns), a changed
 * pair's delta computed from them. With inputs "delta" both sides' model
 * inputs are as stored (with `inputPrefix`), and a changed pair's delta
 * compares the two events as sent.
 */
export async function* presentComparisonJson(
  outline: ComparisonOutline,
  baseRows: AsyncIterable<EventRow>,
  stepRows: AsyncIterable<StoredReplayStepRow>,
  extra: Record<string, unknown> = {},
  opts: {
    inputs?: InputsForm;
    /** Throws RunChanged when the runs are not as they were when `outline` was read. */
    unchanged?: () => Promise<void>;
    /** The index in its run of the first of `baseRows` and of `stepRows` (a window's read that begins further on). */
    start?: { base: number; branch: number };
  } = {},
): AsyncGenerator<string> {
  const inputs = opts.inputs ?? "full";
  const { comparison } = outline;
  const whole = {
    replayId: outline.replay.id,
    sessionId: outline.session.id,
    status: outline.replay.status,
    comparability: outline.replay.comparability,
    policyHash: outline.replay.policyHash,
    firstDivergence: comparison.firstDivergence,
    pairs: [],
    finalOutputDiff: comparison.finalOutputDiff,
    metrics: comparison.metrics,
    evidence: outline.evidence,
    fixtures: outline.fixtures.map((f) => ({ ...f, createdAt: f.createdAt.toISOString() })),
    approvals: outline.approvals,
    ...extra,
    ...(outline.window ? { window: outline.window } : {}),
  };
  const [open, close] = cutAround("comparison", whole, "pairs");
  const base = cursor(baseRows, eventWriter(inputs), (r) => r.seq, "base run", opts.start?.base);
  const branch = cursor(stepRows, stepWriter(inputs), (r) => r.idx, "branch", opts.start?.branch);
  try {
    yield `${open}[`;
    yield* pairsJson(comparison.pairs.map(outlineOfPair), base, branch);
    await opts.unchanged?.();
    yield `]${close}`;
  } finally {
    await Promise.all([base.close(), branch.close()]);
  }
}

/**
 * The comparison of two recorded sessions as JSON text in pieces, as `presentComparisonJson` writes a replay's:
 * `{ comparison: { ...head, pairs: [{ id, type, baseSeq, branchSeq, base, branch, delta? }], ...tail } }`, the
 * session `:id` on the base side and the other on the branch side, each pair's events written from both sessions'
 * rows as they are read (`start`: the index in its session of the first of each's rows).
 */
export async function* presentSessionComparisonJson(
  document: { head: Record<string, unknown>; tail: Record<string, unknown>; pairs: readonly PairOutline[] },
  baseRows: AsyncIterable<EventRow>,
  otherRows: AsyncIterable<EventRow>,
  opts: { inputs?: InputsForm; start?: { base: number; branch: number } } = {},
): AsyncGenerator<string> {
  const inputs = opts.inputs ?? "full";
  const [open, close] = cutAround("comparison", { ...document.head, pairs: [], ...document.tail }, "pairs");
  const base = cursor(baseRows, eventWriter(inputs), (r) => r.seq, "session", opts.start?.base);
  const other = cursor(otherRows, eventWriter(inputs), (r) => r.seq, "other session", opts.start?.branch);
  try {
    yield `${open}[`;
    yield* pairsJson(document.pairs, base, other);
    yield `]${close}`;
  } finally {
    await Promise.all([base.close(), other.close()]);
  }
}
