/** Creating and updating replays: the row, its log and fixtures, a run's result, failures and resume claims. */
import { BranchLogEntry, type Policy, type Edit, type FixtureEntry, type ReplayResult } from "@/lib/replay";
import type { DbClient } from "./client";
import type { RawSql } from "./sql";
import { Prisma } from "./generated/client";
import { runFailure, type RunFailureCode } from "@/lib/run-failures";
import { isTerminal } from "./replays";
import { newId } from "./event-rows";
import { insertStepWindow, stepRows, stepWindows } from "./replay-steps";
import { notFound } from "@/lib/errors";
import type { ComparisonInputsRow } from "./replay-comparison";

function json(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** Nullable JSON column value: SQL NULL for null/undefined (Prisma.DbNull is avoided by leaving the field out). */
function jsonOrUndefined(value: unknown): Prisma.InputJsonValue | undefined {
  return value === null || value === undefined ? undefined : json(value);
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

/**
 * Appends non-fixture log entries (approvals, live and simulated results) after the last one, in one
 * statement. Live and simulated results are written ahead, as soon as the executor answers (lib/jobs), so a
 * killed run keeps them; the run's own copy of such an entry (same id) is not stored twice.
 */
export async function appendLogEntries(
  client: RawSql,
  replayId: string,
  entries: readonly BranchLogEntry[],
  actor: string | null,
): Promise<void> {
  const fresh = entries.filter((e) => e.type !== "fixture");
  if (fresh.length === 0) return;
  const records = fresh.map((e, n) => ({
    n,
    id: newId(),
    type: e.type,
    payload: e,
    actor: e.type === "approval" ? e.by : actor,
    at: e.at ? new Date(e.at).toISOString() : null,
  }));
  // Only the ids of what is stored are compared (in the database), never the entries themselves.
  await client.$executeRaw`
    WITH fresh AS (
      SELECT x.* FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
        AS x(n int, id text, type text, payload jsonb, actor text, at timestamptz)
      WHERE NOT EXISTS (SELECT 1 FROM "ReplayLogEntry" e
        WHERE e."replayId" = ${replayId}::text AND e.payload->>'id' = x.payload->>'id')
    ), last AS (SELECT COALESCE(max(idx), -1) AS idx FROM "ReplayLogEntry" WHERE "replayId" = ${replayId}::text)
    INSERT INTO "ReplayLogEntry" (id, "replayId", idx, type, payload, actor, "createdAt")
    SELECT fresh.id, ${replayId}::text, last.idx + row_number() OVER (ORDER BY fresh.n), fresh.type, fresh.payload,
      fresh.actor, COALESCE(fresh.at, CURRENT_TIMESTAMP)
    FROM fresh, last`;
}

/**
 * Replaces the derived steps and state of a replay with one run's result. Call inside a transaction. Null when a
 * worker's lease no longer holds the replay (nothing stored). With `comparisonInputs`, a fresh run whose steps are
 * one statement's (at most STEP_WINDOW rows) is answered, by that statement, what its comparison is built from
 * (lib/db/replay-comparison.ts comparisonInputsOf), as replay_comparison_inputs would read it now; otherwise
 * `comparisonInputs` is null and the caller reads them.
 */
export async function saveRunResult(
  client: RawSql,
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
    /** `stepRows(replayId, result.steps)`, when the caller built them before its transaction began. */
    rows?: readonly Prisma.ReplayStepCreateManyInput[];
    /** Answer what the replay's comparison is built from, when the steps' statement can. */
    comparisonInputs?: boolean;
  } = {},
): Promise<{ comparisonInputs: ComparisonInputsRow | null } | null> {
  const terminal = isTerminal(result.status);
  const text = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  const error =
    result.stop && result.status !== "paused" && result.status !== "awaiting_approval"
      ? { code: result.stop.code, message: result.stop.message, step: result.stop.step }
      : null;
  const owner = opts.owner;
  // Fenced when a worker stores it: the update takes the row's lock, so no other worker claims it before this
  // transaction ends; the lease is let go with it.
  const fenced =
    owner === undefined ? Prisma.empty : Prisma.sql`, "leaseOwner" = NULL, "leaseUntil" = NULL, attempts = 0`;
  const held =
    owner === undefined ? Prisma.empty : Prisma.sql`AND "leaseOwner" = ${owner}::text AND status = 'running'`;
  const stored = Prisma.sql`stored AS (
      UPDATE "Replay" SET status = ${result.status}::text, comparability = ${result.comparability}::text,
        evidence = ${JSON.stringify(result.evidence)}::jsonb, pending = ${text(result.pending)}::jsonb,
        error = ${text(error)}::jsonb, "stepCount" = ${result.steps.length}::int, "stepsVersion" = "stepsVersion" + 1,
        "finishedAt" = ${terminal ? finishedAt : null}::timestamptz,
        "progressDone" = COALESCE(${opts.progress?.done ?? null}::int, "progressDone"),
        "progressTotal" = COALESCE(${opts.progress?.total ?? null}::int, "progressTotal"),
        "updatedAt" = ${finishedAt}::timestamptz ${fenced}
      WHERE id = ${replayId}::text ${held}
      RETURNING id, status, "stepCount", "stepsVersion", "sessionId")`;
  const windows = stepWindows(opts.rows ?? stepRows(replayId, result.steps));
  // A fresh replay (no steps to replace): the update and the first window of steps are one statement, the steps
  // inserted only when the update found the replay (held). Otherwise its old steps are deleted after the update.
  const first = opts.fresh ? windows.shift() : undefined;
  if (first !== undefined && windows.length === 0 && opts.comparisonInputs) {
    // All the steps in this statement: it answers the comparison's inputs too, the steps' rows from what the
    // INSERT returns (a later statement of the transaction would read them back). No row: not stored.
    const [row] = await client.$queryRaw<ComparisonInputsRow[]>(
      insertStepWindow(
        Prisma.sql`WITH ${stored}, steps AS (`,
        first,
        Prisma.sql`WHERE EXISTS (SELECT 1 FROM stored)
          RETURNING idx, replay_step_lite_row(idx, kind, name, status, "cacheKey", error, output, "outputDigest",
            "plainInputDigest", "inputDigest", input, detail, source, "baseSeq") AS lite)
        SELECT r.status, r."stepCount", r."stepsVersion", r."sessionId", s."eventCount",
          EXISTS (SELECT 1 FROM "ReplayComparison" c WHERE c."replayId" = r.id) AS stored,
          session_lite_rows(r."sessionId") AS base, (SELECT json_agg(lite ORDER BY idx)::text FROM steps) AS steps
        FROM stored r LEFT JOIN "Session" s ON s.id = r."sessionId"`,
      ),
    );
    if (!row) return notStored(owner, replayId);
    return { comparisonInputs: row.eventCount === null ? null : row };
  }
  const [row] = await client.$queryRaw<{ stored: number }[]>(
    first === undefined
      ? Prisma.sql`WITH ${stored} SELECT count(*)::int AS stored FROM stored`
      : Prisma.sql`${insertStepWindow(
          Prisma.sql`WITH ${stored}, steps AS (`,
          first,
          Prisma.sql`WHERE EXISTS (SELECT 1 FROM stored) RETURNING 1) SELECT count(*)::int AS stored FROM stored`,
        )}`,
  );
  if (row?.stored !== 1) return notStored(owner, replayId);
  if (!opts.fresh) await client.$executeRaw`DELETE FROM "ReplayStep" WHERE "replayId" = ${replayId}::text`;
  // Multi-row statements, in this transaction: readers see the steps replaced at once, and a run killed before its
  // commit leaves none of them.
  for (const window of windows) await client.$executeRaw(insertStepWindow(Prisma.empty, window));
  return { comparisonInputs: null };
}

/** A run's result the update did not store: a worker's lease lost it (null), or there is no such replay. */
function notStored(owner: string | undefined, replayId: string): null {
  if (owner !== undefined) return null;
  throw notFound("replay", replayId);
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
