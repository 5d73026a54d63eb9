/**
 * Persistence of replays (branches): the replay row with its policy snapshot
 * and hash, its derived steps, its append-only log (approvals, live and
 * simulated results) and its fixtures. Every function takes a client so the
 * caller composes transactions (lib/server/replays/replays.ts runs one per run).
 *
 * Readers read what they use: the meta (loadReplayMeta), the comparison over
 * digests (loadReplayComparison), the rows a window at a time
 * (./replay-rows.ts, ./replay-window.ts) and the few steps shown whole
 * (fullStep, comparisonRowsAt). No reader holds a run's every step whole; the
 * tests' oracle that does is ./replays-testing.ts.
 */
import {
  alignEvents,
  BranchLogEntry,
  compareRuns,
  Policy,
  plainPolicy,
  summarize,
  type Comparison,
  type FirstDivergence,
  type Edit,
  type Evidence,
  type FixtureEntry,
  type PendingCall,
  type ReplayResult,
  type ReplayStep,
  type SessionEvent,
  type StepSource,
} from "@/lib/replay";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { runFailure, type RunFailureCode } from "@/lib/run-failures";
import { compactInputs, expandInputs, inputDigests } from "@/lib/ingest/inputs";
import { fullEvent, toSessionEvent, withFullInputs } from "./session-reads";
import { plainContents, type PlainContent } from "./replay-window";

export const REPLAY_STATUSES = [
  "queued",
  "running",
  "completed",
  "paused",
  "awaiting_approval",
  "failed",
  "stopped_on_divergence",
  "budget_exhausted",
  "blocked",
  "cancelled",
] as const;

const TERMINAL = new Set<string>([
  "completed",
  "stopped_on_divergence",
  "budget_exhausted",
  "failed",
  "blocked",
  "cancelled",
]);

/** Finished replays: nothing more will happen to them. `queued`, `running`, `paused` and `awaiting_approval` are not. */
export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

export interface ReplayFixtureView {
  id: string;
  toolName: string;
  callId: string | null;
  stepIdx: number | null;
  output: unknown;
  error: { type: string; message: string } | null;
  author: string;
  note: string;
  createdAt: Date;
}

export interface ReplayApprovalView {
  step: number;
  tool: string;
  decision: "approved" | "denied";
  by: string;
  at: string | null;
  note: string | null;
}

export interface ReplayView {
  replay: {
    id: string;
    status: string;
    comparability: string | null;
    policyHash: string;
    policySnapshot: Policy;
    edits: Edit[];
    createdAt: Date;
    finishedAt: Date | null;
    createdBy: string | null;
    sessionId: string;
    policyVersion: { id: string; version: number; policyId: string; policyName: string } | null;
    /** Why the replay stopped or failed, when it did (engine stop or service error). */
    error: { code: string; message: string } | null;
    stepCount: number;
    /** Base events covered of the base run's, while a worker runs it (lib/jobs). */
    progress: { done: number; total: number } | null;
    cancelRequested: boolean;
    attempts: number;
  };
  session: { id: string; title: string | null; externalId: string | null; agentName: string; adapter: string };
  base: SessionEvent[];
  steps: ReplayStep[];
  evidence: Evidence;
  pending: PendingCall | null;
  fixtures: ReplayFixtureView[];
  approvals: ReplayApprovalView[];
  comparison: ReturnType<typeof compareRuns>;
}

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
export function stepRows(replayId: string, steps: readonly ReplayStep[]): Prisma.ReplayStepCreateManyInput[] {
  const compact = compactInputs(steps);
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
    kind: row.kind as ReplayStep["kind"],
    name: row.name,
    input: row.input ?? null,
    output: row.output ?? null,
    error: (row.error as ReplayStep["error"]) ?? null,
    status: row.status as ReplayStep["status"],
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

// ---------------------------------------------------------------------------
// Creating and updating replays

export interface NewReplay {
  sessionId: string;
  policy: Policy;
  policyHash: string;
  policyVersionId: string | null;
  experimentId?: string | null;
  edits: readonly Edit[];
  createdBy: string;
}

export async function createReplayRow(client: DbClient, r: NewReplay): Promise<{ id: string }> {
  return client.replay.create({
    data: {
      sessionId: r.sessionId,
      policyVersionId: r.policyVersionId,
      experimentId: r.experimentId ?? null,
      policySnapshot: json(r.policy),
      policyHash: r.policyHash,
      edits: json(r.edits),
      // A worker picks it up (lib/jobs); it is `running` while one holds its lease.
      status: "queued",
      createdBy: r.createdBy,
    },
    select: { id: true },
  });
}

/** The branch's log as the engine reads it: fixtures first (oldest first), then the other entries in order. */
export async function loadBranchLog(client: DbClient, replayId: string): Promise<BranchLogEntry[]> {
  const [fixtures, entries] = await Promise.all([
    client.fixture.findMany({ where: { replayId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    client.replayLogEntry.findMany({ where: { replayId }, orderBy: { idx: "asc" } }),
  ]);
  const log: BranchLogEntry[] = fixtures.map((f) => fixtureEntryOf(f));
  for (const e of entries) log.push(BranchLogEntry.parse(e.payload));
  return log;
}

export function fixtureEntryOf(f: {
  id: string;
  stepIdx: number | null;
  toolName: string;
  cacheKey: string | null;
  output: unknown;
  error: unknown;
  author: string;
  note: string;
  createdAt: Date;
}): FixtureEntry {
  const error = (f.error as FixtureEntry["error"]) ?? null;
  return {
    type: "fixture",
    id: f.id,
    at: f.createdAt.toISOString(),
    step: f.stepIdx ?? 0,
    tool: f.toolName,
    cacheKey: f.cacheKey,
    ...(error ? { error } : { output: f.output ?? null }),
    author: f.author,
    note: f.note,
  };
}

export interface NewFixture {
  id: string;
  toolName: string;
  callId: string;
  cacheKey: string | null;
  stepIdx: number;
  output: unknown;
  error: { type: string; message: string } | null;
  author: string;
  note: string;
  provenance: Record<string, unknown>;
  createdAt: Date;
}

export async function insertFixture(client: DbClient, replayId: string, f: NewFixture): Promise<void> {
  await client.fixture.create({
    data: {
      id: f.id,
      replayId,
      toolName: f.toolName,
      callId: f.callId,
      cacheKey: f.cacheKey,
      stepIdx: f.stepIdx,
      output: f.error ? undefined : json(f.output ?? null),
      error: jsonOrUndefined(f.error),
      author: f.author,
      note: f.note,
      provenance: json(f.provenance),
      createdAt: f.createdAt,
    },
  });
}

/** Appends non-fixture log entries (approvals, live and simulated results) after the last one. */
export async function appendLogEntries(
  client: DbClient,
  replayId: string,
  entries: readonly BranchLogEntry[],
  actor: string | null,
): Promise<void> {
  const fresh = entries.filter((e) => e.type !== "fixture");
  if (fresh.length === 0) return;
  // Live and simulated results are written ahead, as soon as the executor answers (lib/jobs), so a
  // killed run keeps them; the run's own copy of such an entry (same id) is not stored twice.
  const existing = await client.replayLogEntry.findMany({ where: { replayId }, select: { payload: true } });
  const known = new Set(existing.map((e) => (e.payload as { id?: unknown } | null)?.id));
  const rest = fresh.filter((e) => !known.has(e.id));
  if (rest.length === 0) return;
  const last = await client.replayLogEntry.findFirst({
    where: { replayId },
    orderBy: { idx: "desc" },
    select: { idx: true },
  });
  let idx = (last?.idx ?? -1) + 1;
  await client.replayLogEntry.createMany({
    data: rest.map((e) => ({
      replayId,
      idx: idx++,
      type: e.type,
      payload: json(e),
      actor: e.type === "approval" ? e.by : actor,
      ...(e.at ? { createdAt: new Date(e.at) } : {}),
    })),
  });
}

/** Replaces the derived steps and state of a replay with one run's result. Call inside a transaction. */
export async function saveRunResult(
  client: DbClient,
  replayId: string,
  result: ReplayResult,
  finishedAt: Date,
  opts: {
    /** The lease owner: the result is stored only while it holds the replay, and the lease is let go with it. */
    owner?: string;
    /** No earlier run stored steps (nothing to replace). */
    fresh?: boolean;
    /** The last progress the run reported. */
    progress?: { done: number; total: number } | null;
    /** Stores the steps instead of writing them here: drafts written ahead are published (lib/db/replay-save). */
    storeSteps?: (client: DbClient) => Promise<unknown>;
  } = {},
): Promise<boolean> {
  const terminal = isTerminal(result.status);
  const data = {
    status: result.status,
    comparability: result.comparability,
    evidence: json(result.evidence),
    pending: result.pending ? json(result.pending) : Prisma.DbNull,
    error:
      result.stop && result.status !== "paused" && result.status !== "awaiting_approval"
        ? json({ code: result.stop.code, message: result.stop.message, step: result.stop.step })
        : Prisma.DbNull,
    stepCount: result.steps.length,
    stepsVersion: { increment: 1 },
    finishedAt: terminal ? finishedAt : null,
    ...(opts.progress ? { progressDone: opts.progress.done, progressTotal: opts.progress.total } : {}),
  };
  if (opts.owner !== undefined) {
    // Fenced: the update takes the row's lock, so no other worker claims it before this transaction ends.
    const { count } = await client.replay.updateMany({
      where: { id: replayId, leaseOwner: opts.owner, status: "running" },
      data: { ...data, leaseOwner: null, leaseUntil: null, attempts: 0 },
    });
    if (count !== 1) return false;
  } else {
    await client.replay.update({ where: { id: replayId }, data });
  }
  if (!opts.fresh) await client.replayStep.deleteMany({ where: { replayId } });
  if (opts.storeSteps) {
    await opts.storeSteps(client);
    return true;
  }
  const rows = stepRows(replayId, result.steps);
  for (let k = 0; k < rows.length; k += 1000) await client.replayStep.createMany({ data: rows.slice(k, k + 1000) });
  return true;
}

/** Marks a replay failed with a reason people can act on (a bad input, an executor that could not be reached). */
export async function markReplayFailed(
  client: DbClient,
  replayId: string,
  code: RunFailureCode,
  message: string,
): Promise<void> {
  await client.replay.update({
    where: { id: replayId },
    data: {
      status: "failed",
      comparability: "non_comparable",
      error: json(runFailure(code, message)),
      finishedAt: new Date(),
    },
  });
}

/**
 * Claims a paused or awaiting-approval replay for one resume: a compare-and-set
 * on its `updatedAt` as the caller read it, in its own short transaction. Only
 * one of two concurrent resumes gets the row (status → `queued`, for a worker); the other
 * gets `false` and must not run anything.
 */
export async function claimReplayForResume(
  client: Pick<DbClient, "replay" | "experiment">,
  replayId: string,
  expectedUpdatedAt: Date,
): Promise<boolean> {
  const claimed = await client.replay.updateMany({
    where: { id: replayId, updatedAt: expectedUpdatedAt, status: { in: ["paused", "awaiting_approval"] } },
    data: { status: "queued", pending: Prisma.DbNull },
  });
  if (claimed.count !== 1) return false;
  // A member resumed: its experiment has work again until a worker settles it (lib/db/jobs settleExperiment).
  const row = await client.replay.findUnique({ where: { id: replayId }, select: { experimentId: true } });
  if (row?.experimentId)
    await client.experiment.updateMany({
      where: { id: row.experimentId, status: "completed" },
      data: { status: "running", finishedAt: null },
    });
  return true;
}

/** Gives a claimed replay back its status when a resume was refused before it ran anything. */
export async function releaseReplayClaim(client: DbClient, replayId: string, status: string): Promise<void> {
  await client.replay.updateMany({ where: { id: replayId, status: "running" }, data: { status } });
}

// ---------------------------------------------------------------------------
// Reading

const replayInclude = {
  policyVersion: { select: { id: true, version: true, policyId: true, policy: { select: { name: true } } } },
  session: { select: { id: true, title: true, externalId: true, agent: { select: { name: true, adapter: true } } } },
} satisfies Prisma.ReplayInclude;

function emptyEvidence(policy: Policy, policyHash: string, edits: readonly Edit[]): Evidence {
  const sources: StepSource[] = [
    "recorded",
    "static",
    "fixture",
    "provider_fixture",
    "live",
    "llm",
    "error_result",
    "blocked",
    "edit",
  ];
  return {
    policy,
    policyHash,
    stepsBySource: Object.fromEntries(sources.map((s) => [s, 0])) as Record<StepSource, number>,
    strength: "recorded",
    fixturesUsed: [],
    liveCalls: [],
    inputDrift: [],
    probes: [],
    edits,
  };
}

function withoutDrift({ inputDrift: _, ...rest }: Evidence): PageEvidence {
  return rest;
}

function errorOf(value: unknown): { code: string; message: string } | null {
  if (value && typeof value === "object" && "message" in value) {
    const v = value as { code?: unknown; message?: unknown };
    return { code: typeof v.code === "string" ? v.code : "error", message: String(v.message) };
  }
  return null;
}

export type ReplayMeta = Omit<ReplayView, "base" | "steps" | "comparison">;

/** The evidence as a page shows it: without the input-drift list (an entry per model step whose input changed). */
export type PageEvidence = Omit<Evidence, "inputDrift">;
export type ReplayPageMeta = Omit<ReplayMeta, "evidence"> & { evidence: PageEvidence };

/**
 * The replay row with its session, evidence, fixtures and approvals: everything but the two event sequences.
 * With `{ inputDrift: false }` (the pages) the evidence's input-drift list is left in the database: it grows
 * with the branch, and reading it made a 10,000-step replay's page slower to open than a short one's.
 */
export async function loadReplayMeta(client: DbClient, replayId: string): Promise<ReplayMeta | null>;
export async function loadReplayMeta(
  client: DbClient,
  replayId: string,
  options: { inputDrift: false },
): Promise<ReplayPageMeta | null>;
export async function loadReplayMeta(
  client: DbClient,
  replayId: string,
  options: { inputDrift?: boolean } = {},
): Promise<ReplayMeta | ReplayPageMeta | null> {
  if (!replayId) return null;
  const whole = options.inputDrift !== false;
  const [found, trimmed] = await Promise.all([
    client.replay.findUnique({ where: { id: replayId }, include: replayInclude, omit: { evidence: !whole } }),
    whole
      ? null
      : client.$queryRaw<{ evidence: string | null }[]>`
          SELECT CASE WHEN jsonb_typeof(evidence) = 'object' THEN (evidence - 'inputDrift')::text END AS evidence
          FROM "Replay" WHERE id = ${replayId}`,
  ]);
  if (!found) return null;
  const row = {
    ...found,
    evidence: whole
      ? (found as { evidence: unknown }).evidence
      : trimmed?.[0]?.evidence
        ? (JSON.parse(trimmed[0].evidence) as unknown)
        : null,
  };
  const [fixtures, approvals] = await Promise.all([
    client.fixture.findMany({ where: { replayId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    client.replayLogEntry.findMany({ where: { replayId, type: "approval" }, orderBy: { idx: "asc" } }),
  ]);
  // Pages hand the replay to client components: its policy travels as plain JSON.
  const policy = plainPolicy(Policy.parse(row.policySnapshot));
  const edits = (row.edits ?? []) as Edit[];
  const evidenceStored = row.evidence as Partial<Evidence> | null;
  const evidence: PageEvidence =
    evidenceStored && "policyHash" in evidenceStored
      ? (evidenceStored as PageEvidence)
      : whole
        ? emptyEvidence(policy, row.policyHash, edits)
        : withoutDrift(emptyEvidence(policy, row.policyHash, edits));
  return {
    replay: {
      id: row.id,
      status: row.status,
      comparability: row.comparability,
      policyHash: row.policyHash,
      policySnapshot: policy,
      edits,
      createdAt: row.createdAt,
      finishedAt: row.finishedAt,
      createdBy: row.createdBy,
      sessionId: row.sessionId,
      policyVersion: row.policyVersion
        ? {
            id: row.policyVersion.id,
            version: row.policyVersion.version,
            policyId: row.policyVersion.policyId,
            policyName: row.policyVersion.policy.name,
          }
        : null,
      error: errorOf(row.error),
      stepCount: row.stepCount,
      progress: row.progressTotal ? { done: row.progressDone ?? 0, total: row.progressTotal } : null,
      cancelRequested: row.cancelRequested,
      attempts: row.attempts,
    },
    session: {
      id: row.session.id,
      title: row.session.title,
      externalId: row.session.externalId,
      agentName: row.session.agent.name,
      adapter: row.session.agent.adapter,
    },
    evidence,
    pending: (row.pending as PendingCall | null) ?? null,
    fixtures: fixtures.map((f) => ({
      id: f.id,
      toolName: f.toolName,
      callId: f.callId,
      stepIdx: f.stepIdx,
      output: f.output ?? null,
      error: (f.error as ReplayFixtureView["error"]) ?? null,
      author: f.author,
      note: f.note,
      createdAt: f.createdAt,
    })),
    approvals: approvals.map((a) => {
      const p = BranchLogEntry.parse(a.payload);
      if (p.type !== "approval") throw new Error(`log entry ${a.id} is typed approval but holds ${p.type}`);
      return { step: p.step, tool: p.tool, decision: p.decision, by: p.by, at: p.at, note: p.note ?? null };
    }),
  };
}

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

type LiteRow = {
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
type LiteStepRow = LiteRow & {
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
 * Whether a model call stored without a digest has an input (a stored digest says it has: a call without one gets
 * none), tested only there: reading a model input to test it costs its whole prompt window.
 */
const HAS_INPUT = Prisma.sql`CASE WHEN kind = 'model_call' AND "inputDigest" IS NULL THEN input IS NOT NULL AND input <> 'null'::jsonb ELSE "inputDigest" IS NOT NULL END`;

/** The columns both runs' rows are read with, in order (see loadReplayComparison). */
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
  const [baseRows, stepRowsFound] = await Promise.all([
    jsonRows<BaseTuple>(
      client,
      Prisma.sql`
        SELECT json_agg(json_build_array(
          seq, kind, name, status, "cacheKey", error, CASE WHEN kind = 'final_output' THEN output END,
          "outputDigest", "plainInputDigest", CASE WHEN kind = 'model_call' THEN "inputDigest" END, ${HAS_INPUT},
          "durationMs", "inputTokens", "outputTokens", "costUsd"
        ) ORDER BY seq)::text AS rows
        FROM "Event" WHERE "sessionId" = ${meta.replay.sessionId}`,
    ).then((rows) => rows.map(baseLiteRow)),
    jsonRows<StepTuple>(
      client,
      Prisma.sql`
        SELECT json_agg(json_build_array(
          idx, kind, name, status, "cacheKey", error, CASE WHEN kind = 'final_output' THEN output END,
          "outputDigest", "plainInputDigest", CASE WHEN kind = 'model_call' THEN "inputDigest" END, ${HAS_INPUT},
          (detail->>'durationMs')::int, source, "baseSeq", COALESCE((detail->>'equalsBase')::boolean, false),
          CASE WHEN jsonb_typeof(detail->'usage') = 'object' THEN detail->'usage' END
        ) ORDER BY idx)::text AS rows
        FROM "ReplayStep" WHERE "replayId" = ${replayId}`,
    ).then((rows) => rows.map(stepLiteRow)),
  ]);
  // Every model input with its stored digest (all rows since the start-up migration): the digests read above are
  // all the comparison needs. Otherwise (rows stored before digests) only the digests of non-vouching steps are
  // used as read, and the others are found as below.
  const stored = [...baseRows, ...stepRowsFound].every(
    (r) => r.kind !== "model_call" || r.hasInput !== true || r.inputDigest !== null,
  );
  if (!stored) {
    for (const r of baseRows) r.inputDigest = null;
    for (const r of stepRowsFound) if (r.equalsBase === true) r.inputDigest = null;
  }
  const base = baseRows.map(liteEvent);
  const steps = stepRowsFound.map((r) =>
    Object.assign(liteEvent(r), {
      source: r.source as StepSource,
      baseSeq: r.baseSeq,
      equalsBase: r.equalsBase === true,
    }),
  );

  // Model calls paired with a branch step that does not vouch for its equality are compared by digest:
  // read the digests not read yet (the base side, and a vouching step aligned with another base event).
  const baseNeeded: number[] = [];
  const branchNeeded: number[] = [];
  for (const p of stored ? [] : alignEvents(base, steps, { deltas: false })) {
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
    baseNeeded.length === 0 ? [] : eventDigests(client, meta.replay.sessionId, baseNeeded),
    branchNeeded.length === 0 ? [] : stepDigests(client, replayId, branchNeeded),
  ]);
  withDigest(base, baseDigests);
  withDigest(steps, branchDigests);
  const finalOf = (events: readonly SessionEvent[]) =>
    [...events].reverse().find((e) => e.kind === "final_output")?.output;
  const comparison = compareRuns(base, steps, { branchComplete: meta.replay.status === "completed", deltas: false });
  return {
    ...meta,
    baseCount: base.length,
    branchCount: steps.length,
    baseFinalOutput: finalOf(base),
    branchFinalOutput: finalOf(steps),
    comparison: {
      ...comparison,
      firstDivergence: await withSummaryInWords(client, meta.replay, comparison),
    },
  };
}

/**
 * The first divergence with its summary from the two steps' content: which
 * parts of a changed pair differ (a tool call's arguments or the rest of its
 * input, its result) needs more than the digests say. Reads those two rows.
 */
async function withSummaryInWords(
  client: DbClient,
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

/** The replay row's state, without steps: for polling and for checks before a resume. */
export async function getReplayState(client: DbClient, replayId: string) {
  if (!replayId) return null;
  return client.replay.findUnique({
    where: { id: replayId },
    select: {
      id: true,
      status: true,
      comparability: true,
      pending: true,
      error: true,
      stepCount: true,
      updatedAt: true,
      finishedAt: true,
      sessionId: true,
      policyHash: true,
      progressDone: true,
      progressTotal: true,
      cancelRequested: true,
    },
  });
}

/** Newest first, paginated by cursor (the last id of the previous page). */
export async function listReplays(
  client: DbClient,
  opts: { limit?: number; cursor?: string; sessionId?: string } = {},
) {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await client.replay.findMany({
    where: opts.sessionId ? { sessionId: opts.sessionId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(opts.cursor ? { cursor: { id: opts.cursor }, skip: 1 } : {}),
    select: {
      id: true,
      status: true,
      comparability: true,
      policyHash: true,
      stepCount: true,
      createdAt: true,
      createdBy: true,
      session: { select: { id: true, title: true, externalId: true, agent: { select: { name: true } } } },
      policyVersion: { select: { version: true, policy: { select: { name: true } } } },
    },
  });
  const hasMore = rows.length > limit;
  const replays = hasMore ? rows.slice(0, limit) : rows;
  return { replays, nextCursor: hasMore ? (replays.at(-1)?.id ?? null) : null };
}

/** What a run needs of its replay row: the policy snapshot, edits, author, and the agent and cohort it runs for. */
export async function replayRunContext(client: DbClient, replayId: string) {
  // One round trip (a worker runs this once per replay).
  const rows = await client.$queryRaw<
    {
      id: string;
      sessionId: string;
      policySnapshot: unknown;
      edits: unknown;
      createdBy: string | null;
      modelEndpointId: string | null;
      experimentId: string | null;
      experimentAgentVersionId: string | null;
      agentId: string;
      adapter: string;
    }[]
  >`
    SELECT r.id, r."sessionId", r."policySnapshot", r.edits, r."createdBy", r."modelEndpointId",
           e.id AS "experimentId", e."agentVersionId" AS "experimentAgentVersionId", s."agentId", a.adapter
      FROM "Replay" r
      JOIN "Session" s ON s.id = r."sessionId"
      JOIN "Agent" a ON a.id = s."agentId"
      LEFT JOIN "Experiment" e ON e.id = r."experimentId"
     WHERE r.id = ${replayId}`;
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    sessionId: row.sessionId,
    policySnapshot: row.policySnapshot,
    edits: row.edits,
    createdBy: row.createdBy,
    modelEndpointId: row.modelEndpointId,
    experiment: row.experimentId ? { id: row.experimentId, agentVersionId: row.experimentAgentVersionId! } : null,
    session: { agentId: row.agentId, agent: { adapter: row.adapter } },
  };
}

/** The notes each earlier step was stored with, by the log entry its result came from. */
export async function stepNotesByLogEntry(client: DbClient, replayId: string): Promise<Map<string, string[]>> {
  const rows = await client.replayStep.findMany({ where: { replayId }, select: { detail: true } });
  const out = new Map<string, string[]>();
  for (const row of rows) {
    const d = (row.detail ?? {}) as { logEntryId?: string; notes?: string[] };
    if (d.logEntryId && d.notes) out.set(d.logEntryId, d.notes);
  }
  return out;
}

/** Both sides of one aligned pair: the base event at `baseSeq` and the branch step at `branchSeq` (null where absent); null when the replay does not exist. */
export async function comparisonPairRows(
  client: DbClient,
  replayId: string,
  baseSeq: number | null,
  branchSeq: number | null,
) {
  const replay = await client.replay.findUnique({ where: { id: replayId }, select: { sessionId: true } });
  if (!replay) return null;
  const [baseRow, branchRow] = await Promise.all([
    baseSeq === null ? null : fullEvent(client, replay.sessionId, baseSeq),
    branchSeq === null ? null : fullStep(client, replayId, branchSeq),
  ]);
  return { base: baseRow ? toSessionEvent(baseRow) : null, branch: branchRow ? toReplayStep(branchRow) : null };
}

/**
 * The base events at `baseSeqs` and the branch steps at `branchSeqs` with
 * their full inputs, each run read once: the rows asked for, and when a model
 * call among them is stored as a delta, the run's model calls before the last
 * such one (expanded once for all of them). Null when the replay does not
 * exist; a seq with no row is absent from its map.
 */
export async function comparisonRowsAt(
  client: DbClient,
  replayId: string,
  baseSeqs: readonly number[],
  branchSeqs: readonly number[],
) {
  const replay = await client.replay.findUnique({ where: { id: replayId }, select: { sessionId: true } });
  if (!replay) return null;
  const { sessionId } = replay;
  const [baseRows, stepRows] = await Promise.all([
    baseSeqs.length === 0
      ? []
      : client.event.findMany({ where: { sessionId, seq: { in: [...baseSeqs] } }, orderBy: { seq: "asc" } }),
    branchSeqs.length === 0
      ? []
      : client.replayStep.findMany({ where: { replayId, idx: { in: [...branchSeqs] } }, orderBy: { idx: "asc" } }),
  ]);
  const lastDelta = <R>(rows: readonly R[], prefixed: (r: R) => boolean, at: (r: R) => number) =>
    rows.filter(prefixed).map(at).at(-1);
  const baseUpTo = lastDelta(
    baseRows,
    (r) => r.inputPrefixSeq !== null,
    (r) => r.seq,
  );
  const branchUpTo = lastDelta(
    stepRows,
    (r) => r.inputPrefixIdx !== null,
    (r) => r.idx,
  );
  // The earlier model calls serve only to expand the asked rows' inputs: their inputs and prefixes alone.
  const [baseBefore, branchBefore] = await Promise.all([
    baseUpTo === undefined
      ? []
      : client.event.findMany({
          where: { sessionId, kind: "model_call", seq: { lt: baseUpTo, notIn: [...baseSeqs] } },
          orderBy: { seq: "asc" },
          select: { seq: true, kind: true, input: true, inputPrefixSeq: true, inputPrefixCount: true },
        }),
    branchUpTo === undefined
      ? []
      : client.replayStep.findMany({
          where: { replayId, kind: "model_call", idx: { lt: branchUpTo, notIn: [...branchSeqs] } },
          orderBy: { idx: "asc" },
          select: { idx: true, kind: true, input: true, inputPrefixIdx: true, inputPrefixCount: true },
        }),
  ]);
  const baseInputs = new Map(
    withFullInputs([...baseBefore, ...baseRows].sort((a, b) => a.seq - b.seq)).map((r) => [r.seq, r.input]),
  );
  const branchInputs = new Map(
    withFullStepInputs([...branchBefore, ...stepRows].sort((a, b) => a.idx - b.idx)).map((r) => [r.idx, r.input]),
  );
  return {
    base: new Map(baseRows.map((r) => [r.seq, toSessionEvent({ ...r, input: baseInputs.get(r.seq) ?? r.input })])),
    branch: new Map(stepRows.map((r) => [r.idx, toReplayStep({ ...r, input: branchInputs.get(r.idx) })])),
  };
}

/** One stored step with its full input (its model call's prefix read and expanded), or null. */
export async function fullStep(client: DbClient, replayId: string, idx: number) {
  const row = await client.replayStep.findUnique({ where: { replayId_idx: { replayId, idx } } });
  if (!row || row.inputPrefixIdx === null) return row;
  const before = await client.replayStep.findMany({
    where: { replayId, kind: "model_call", idx: { lt: idx } },
    orderBy: { idx: "asc" },
    select: { idx: true, kind: true, input: true, inputPrefixIdx: true, inputPrefixCount: true },
  });
  return { ...row, input: withFullStepInputs([...before, row]).at(-1)!.input };
}
