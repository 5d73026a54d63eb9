/** A replay's steps as stored rows and back: stored flat, the engine's extra fields in `detail`. */
import { type ReplayStep, type SessionEvent, type StepSource } from "@/lib/replay";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { compactInputs, expandInputs, type CompactInput, type Step } from "@/lib/sessions/inputs";
import { newId } from "./event-rows";
import { storedStepFields } from "./session-reads";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** Nullable JSON column value: SQL NULL for null/undefined (Prisma.DbNull is avoided by leaving the field out). */
function jsonOrUndefined(value: unknown): Prisma.InputJsonValue | undefined {
  return value === null || value === undefined ? undefined : json(value);
}

// ---------------------------------------------------------------------------
// Steps: stored flat, the engine's extra fields in `detail`.

interface StepDetail {
  startedAt: string | null;
  durationMs: number | null;
  usage: SessionEvent["usage"];
  parentSeq: number | null;
  occurrence: number | null;
  equalsBase: boolean;
  edits: ReplayStep["edits"];
  fixtureId?: string;
  logEntryId?: string;
  approvalId?: string;
  inputDrift?: string[];
  notes?: string[];
}

/**
 * The rows of a run's steps. Inputs and outputs go to the database as
 * JSON.stringify of the parsed values (numbers as JavaScript writes them), so
 * the database's digests of equal values are equal (see liteEvent): a writer
 * of these columns must not send JSON text it did not make that way.
 */
export function stepRows(
  replayId: string,
  steps: readonly ReplayStep[],
  /** A run's own compactor (`inputCompactor`), for steps stored a few at a time: each extends the run's last model call. */
  compactor?: (step: Step) => CompactInput,
): Prisma.ReplayStepCreateManyInput[] {
  const compact = compactor ? steps.map((s) => compactor(s)) : compactInputs(steps);
  return steps.map((s, i) => {
    const detail: StepDetail = {
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      usage: s.usage,
      parentSeq: s.parentSeq,
      occurrence: s.occurrence,
      equalsBase: s.equalsBase,
      edits: s.edits,
      ...(s.fixtureId ? { fixtureId: s.fixtureId } : {}),
      ...(s.logEntryId ? { logEntryId: s.logEntryId } : {}),
      ...(s.approvalId ? { approvalId: s.approvalId } : {}),
      ...(s.inputDrift ? { inputDrift: s.inputDrift } : {}),
      ...(s.notes && s.notes.length > 0 ? { notes: s.notes } : {}),
    };
    return {
      replayId,
      idx: s.seq,
      kind: s.kind,
      name: s.name,
      source: s.source,
      baseSeq: s.baseSeq,
      input: jsonOrUndefined(compact[i]!.input),
      inputPrefixIdx: compact[i]!.prefix?.seq ?? null,
      inputPrefixCount: compact[i]!.prefix?.count ?? null,
      inputDigest: compact[i]!.digest,
      output: jsonOrUndefined(s.output),
      error: jsonOrUndefined(s.error),
      status: s.status,
      cacheKey: s.cacheKey,
      miss: jsonOrUndefined(s.miss),
      detail: json(detail),
    };
  });
}

/** Most step rows one INSERT writes: a replay of N steps is stored in about N / STEP_WINDOW statements. */
export const STEP_WINDOW = 1000;

/** Most bytes of JSON one INSERT carries (as the events' import: the embedded database aborts on a statement of hundreds of MB). */
export const STEP_INSERT_BYTES = 4_000_000;

/**
 * A run's step rows (`stepRows`) as the JSON records of the INSERTs that store them (`insertStepWindow`): a
 * window of at most STEP_WINDOW rows and about STEP_INSERT_BYTES each (none when there are no rows).
 */
export function stepWindows(
  rows: readonly Prisma.ReplayStepCreateManyInput[],
  window: { rows?: number; bytes?: number } = {},
): string[] {
  const maxRows = window.rows ?? STEP_WINDOW;
  const maxBytes = window.bytes ?? STEP_INSERT_BYTES;
  const windows: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    // Undefined fields are left out of the text: the column is SQL NULL, as createMany stores them.
    const text = JSON.stringify({ ...row, id: row.id ?? newId() });
    if (batch.length >= maxRows || (batch.length > 0 && bytes + text.length > maxBytes)) {
      windows.push(`[${batch.join(",")}]`);
      batch = [];
      bytes = 0;
    }
    batch.push(text);
    bytes += text.length + 1;
  }
  if (batch.length > 0) windows.push(`[${batch.join(",")}]`);
  return windows;
}

/**
 * The INSERT of a window of step rows (`text`: their JSON records, `stepWindows`), after the statement's `head`
 * (a WITH or nothing), for the rows `where` allows (a condition on the head's CTEs, or nothing): one parameter,
 * the same SQL on both engines.
 */
export const insertStepWindow = (head: Prisma.Sql, text: string, where: Prisma.Sql = Prisma.empty) => Prisma.sql`
  ${head}
  INSERT INTO "ReplayStep" (id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
    "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest")
  SELECT id, "replayId", idx, kind, name, source, "baseSeq", input, output, error, status,
    "cacheKey", miss, detail, "inputPrefixIdx", "inputPrefixCount", "inputDigest"
  FROM jsonb_to_recordset(${text}::jsonb) AS x(id text, "replayId" text, idx int, kind text,
    name text, source text, "baseSeq" int, input jsonb, output jsonb, error jsonb, status text, "cacheKey" text,
    miss jsonb, detail jsonb, "inputPrefixIdx" int, "inputPrefixCount" int, "inputDigest" text)
  ${where}`;

/**
 * Inserts a run's step rows (`stepRows`) as JSON records (`jsonb_to_recordset`), a window per statement
 * (`stepWindows`). Call inside the transaction that stores the run's result: the windows are all stored or
 * none. Returns how many statements it sent.
 */
export async function insertStepRows(
  client: DbClient,
  rows: readonly Prisma.ReplayStepCreateManyInput[],
  window: { rows?: number; bytes?: number } = {},
): Promise<number> {
  const windows = stepWindows(rows, window);
  for (const text of windows) await client.$executeRaw(insertStepWindow(Prisma.empty, text));
  return windows.length;
}

type StoredStepRow = StepRow & { inputPrefixIdx?: number | null; inputPrefixCount?: number | null };

/** What expanding a step's stored model input reads of it. */
type StoredStepInput = Pick<StepRow, "idx" | "kind" | "input"> & {
  inputPrefixIdx?: number | null;
  inputPrefixCount?: number | null;
};

/** Rows of ONE replay in idx order (all its model calls up to the last row) with full model inputs. */
export function withFullStepInputs<R extends StoredStepInput>(rows: readonly R[]): R[] {
  if (!rows.some((r) => (r.inputPrefixIdx ?? null) !== null)) return [...rows];
  const full = expandInputs(
    rows.map((r) => ({
      seq: r.idx,
      kind: r.kind,
      input: r.input,
      prefix:
        r.inputPrefixIdx === null || r.inputPrefixIdx === undefined
          ? null
          : { seq: r.inputPrefixIdx, count: r.inputPrefixCount ?? 0 },
    })),
  );
  return rows.map((r, i) => ({ ...r, input: full[i] }));
}

/** A replay's stored steps, in idx order, as the engine reads them (full model inputs). */
export function toReplaySteps(rows: readonly StoredStepRow[]): ReplayStep[] {
  return withFullStepInputs(rows).map(toReplayStep);
}

type StepRow = {
  idx: number;
  kind: string;
  name: string;
  source: string;
  baseSeq: number | null;
  input: unknown;
  output: unknown;
  error: unknown;
  status: string;
  cacheKey: string | null;
  miss: unknown;
  detail: unknown;
};

export function toReplayStep(row: StepRow): ReplayStep {
  const d = (row.detail ?? {}) as Partial<StepDetail>;
  const step: ReplayStep = {
    seq: row.idx,
    ...storedStepFields(row),
    startedAt: d.startedAt ?? null,
    durationMs: d.durationMs ?? null,
    usage: d.usage ?? null,
    parentSeq: d.parentSeq ?? null,
    cacheKey: row.cacheKey,
    occurrence: d.occurrence ?? null,
    source: row.source as StepSource,
    baseSeq: row.baseSeq,
    miss: (row.miss as ReplayStep["miss"]) ?? null,
    equalsBase: d.equalsBase ?? false,
    edits: d.edits ?? [],
  };
  if (d.fixtureId) step.fixtureId = d.fixtureId;
  if (d.logEntryId) step.logEntryId = d.logEntryId;
  if (d.approvalId) step.approvalId = d.approvalId;
  if (d.inputDrift) step.inputDrift = d.inputDrift;
  if (d.notes) step.notes = d.notes;
  return step;
}
