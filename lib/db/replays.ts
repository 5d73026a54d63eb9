/**
 * Persistence of replays (branches): the replay row with its policy snapshot
 * and hash, its derived steps, its append-only log (approvals, live and
 * simulated results) and its fixtures. Every function takes a client so the
 * caller composes transactions (lib/server/replays/replays.ts runs one per run).
 * Rows are written by ./replay-writes.ts and converted by ./replay-steps.ts.
 *
 * Readers read what they use: the meta (loadReplayMeta), the comparison over
 * digests (loadReplayComparison, ./replay-comparison.ts), the rows a window at a time
 * (./replay-rows.ts, ./replay-window.ts) and the few steps shown whole
 * (fullStep, comparisonRowsAt). No reader holds a run's every step whole; the
 * tests' oracle that does is ./replays-testing.ts.
 */
import {
  BranchLogEntry,
  type compareRuns,
  Policy,
  plainPolicy,
  type Edit,
  type Evidence,
  type PendingCall,
  type ReplayStep,
  type SessionEvent,
  stepsEvidence,
} from "@/lib/replay";
import type { DbClient } from "./client";
import { type Prisma } from "./generated/client";
import { fullEvent, toSessionEvent, withFullInputs } from "./session-reads";
import { toReplayStep, withFullStepInputs } from "./replay-steps";

export const REPLAY_STATUSES = [
  "queued",
  "waiting_for_agent",
  "running",
  "completed",
  "paused",
  "awaiting_approval",
  "failed",
  "stopped_on_divergence",
  "budget_exhausted",
  "blocked",
  "cancelled",
  "abandoned",
] as const;

const TERMINAL = new Set<string>([
  "completed",
  "stopped_on_divergence",
  "budget_exhausted",
  "failed",
  "blocked",
  "cancelled",
  "abandoned",
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
    /** Who drives the branch: the server's engine, or the user's own agent through its endpoints. */
    driver: string;
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

// ---------------------------------------------------------------------------
// Reading

const replayInclude = {
  policyVersion: { select: { id: true, version: true, policyId: true, policy: { select: { name: true } } } },
  session: { select: { id: true, title: true, externalId: true, agent: { select: { name: true, adapter: true } } } },
} satisfies Prisma.ReplayInclude;

function emptyEvidence(policy: Policy, policyHash: string, edits: readonly Edit[]): Evidence {
  return {
    policy,
    policyHash,
    ...stepsEvidence([], undefined),
    strength: "recorded",
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
      driver: row.driver,
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
