/**
 * Replay orchestration: loads a base session, its tools and a policy, builds
 * the history lookup for wider scopes from the database, runs the engine with
 * the branch's log first, and persists steps, log, fixtures and status in one
 * transaction per run. Resuming (a fixture, an approval) re-runs the branch
 * from the start with its log, so a live call is never repeated.
 */
import { recordAudit } from "@/lib/db/audit";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  Edits,
  EventError,
  CancelledBeforeCall,
  LiveCallInDoubt,
  Policy,
  RunInterrupted,
  policyHash,
  replay,
  ReplayInputError,
  validateEdits,
  checkPolicy,
  changedPaths,
  Adapter,
  Capability,
  type ApprovalEntry,
  type BranchLogEntry,
  type ModelExecutor,
  type PendingCall,
  type PolicyIssue,
  type ReplayResult,
  type SessionEvent,
  type ToolAnswer,
  type ToolCall,
  type ToolExecutor,
  type ToolSimulator,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import {
  beginLiveCall,
  claimReplayRun,
  holdsReplayLease,
  markReplayCancelled,
  releaseReplayLease,
  type LiveCallStart,
  renewReplayLease,
  replayCancelRequested,
  replayLastError,
  saveReplayProgress,
  settleExperiment,
} from "@/lib/db/jobs";
import { hasModelEndpoint } from "@/lib/db/executors";
import { historyLookupFor, knownTools } from "@/lib/db/history";
import { getPolicyVersionById, withTransaction } from "@/lib/db/policies";
import { loadReplayComparison } from "@/lib/db/replay-comparison";
import {
  appendLogEntries,
  claimReplayForResume,
  createReplayRow,
  insertFixture,
  loadBranchLog,
  markReplayFailed,
  saveRunResult,
  type NewFixture,
} from "@/lib/db/replay-writes";
import {
  comparisonPairRows,
  getReplayState as readReplayState,
  listReplays as readReplays,
  isTerminal,
  replayRunContext,
  stepNotesByLogEntry,
} from "@/lib/db/replays";
import { setReplayCounterfactual } from "@/lib/db/checks";
import { sessionContext } from "@/lib/db/session-reads";
import { publishStepDrafts, sessionEventsForRun, writeStepDrafts } from "@/lib/db/replay-save";
import { pauser } from "@/lib/event-loop";
import { AppError, formatIssuePath, issuesFromZod, notFound } from "@/lib/errors";
import { ExecutorError, modelExecutor, toolExecutor, toolSimulator, type NulReport } from "@/lib/executors/live";
import { hasLoneSurrogate } from "@/lib/hostile/text";
import { appErrorFromDatabase } from "@/lib/db/errors";
import { authorize } from "../authz";
import {
  CounterfactualInput,
  LIVE_MODEL_POLICIES,
  prepareCounterfactual,
  settleChecks,
} from "../checks/counterfactual";
import type { Principal } from "../principal";
import { jobQueueFor, type QueueDeps } from "../job-queue";
import type { RunFailure, RunFailureCode } from "@/lib/run-failures";

/**
 * Where a value holds U+0000 or an unpaired UTF-16 surrogate (in a string or a
 * key), which PostgreSQL cannot store in JSON. Checked before anything runs: a
 * note that could not be saved used to fail after the live call it approved.
 */
function nulPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return value.includes("\u0000") || hasLoneSurrogate(value) ? path : null;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const found = nulPath(value[k], [...path, k]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key.includes("\u0000") || hasLoneSurrogate(key)) return [...path, key];
      const found = nulPath(inner, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** Refuses a NUL character anywhere in the value, naming its path. */
function refuseNul(value: unknown, ctx: z.RefinementCtx) {
  const path = nulPath(value);
  if (path)
    ctx.addIssue({
      code: "custom",
      path,
      message:
        "Contains a NUL character (U+0000) or an unpaired UTF-16 surrogate (such as \\ud800), which cannot be stored; remove it.",
    });
}

export const StartReplayInput = z
  .object({
    sessionId: z.string().min(1, "Choose a session."),
    policy: z.unknown().optional(),
    policyVersionId: z.string().min(1).optional(),
    edits: Edits.optional(),
  })
  .extend(CounterfactualInput.shape)
  .superRefine((v, ctx) => refuseNul({ policy: v.policy, edits: v.edits, checks: v.checks }, ctx))
  .refine((v) => !(v.policy !== undefined && v.policyVersionId !== undefined), {
    message: 'Send either "policy" or "policyVersionId", not both.',
    path: ["policy"],
  })
  .refine((v) => v.policy !== undefined || v.policyVersionId !== undefined, {
    message: 'Send a "policy" document or a "policyVersionId" (the recommended default is RECOMMENDED_RCA_POLICY).',
    path: ["policy"],
  });
export type StartReplayInput = z.infer<typeof StartReplayInput>;

/** A fixture for the pending call: exactly one of output and error, and a note. */
export const FixtureInput = z
  .object({
    output: z.unknown().optional(),
    error: EventError.optional(),
    note: z.string().trim().min(1, "Say where the value comes from (a note is required).").max(4000),
    /** Optional checks: the call the analyst means. A mismatch is refused. */
    callId: z.string().optional(),
    tool: z.string().optional(),
    provenance: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine(refuseNul)
  .refine((v) => (v.output !== undefined) !== (v.error !== undefined), {
    message: 'Send exactly one of "output" (the tool\'s result) and "error" ({ type, message }).',
    path: ["output"],
  });
export type FixtureInput = z.infer<typeof FixtureInput>;

export const ApprovalInput = z
  .object({
    decision: z.enum(["approved", "denied"]),
    note: z.string().trim().max(2000).optional(),
    callId: z.string().optional(),
  })
  .superRefine(refuseNul);
export type ApprovalInput = z.infer<typeof ApprovalInput>;

const ReplayId = z.string().min(1, "Name the replay.");

/** `supplyFixture`'s input: the replay and the fixture for its pending call. */
export const SupplyFixtureInput = z.object({ replayId: ReplayId }).and(FixtureInput);
export type SupplyFixtureInput = z.infer<typeof SupplyFixtureInput>;

/** `decideApproval`'s input: the replay and the decision on its pending live call. */
export const DecideApprovalInput = z.object({ replayId: ReplayId }).and(ApprovalInput);
export type DecideApprovalInput = z.infer<typeof DecideApprovalInput>;

export const ReplayRef = z.object({ replayId: ReplayId });
export type ReplayRef = z.infer<typeof ReplayRef>;

export const ListReplaysInput = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
});
export type ListReplaysInput = z.infer<typeof ListReplaysInput>;

/** Pair ids name their seqs: p<base>-<branch>, i<branch>, r<base>. */
export const ComparisonPairInput = z.object({
  replayId: ReplayId,
  pairId: z.string().regex(/^(p\d+-\d+|i\d+|r\d+)$/, "not a pair id"),
});
export type ComparisonPairInput = z.infer<typeof ComparisonPairInput>;

export const PolicyWarningsInput = z.object({ sessionId: z.string().min(1), documents: z.array(z.unknown()) });
export type PolicyWarningsInput = z.infer<typeof PolicyWarningsInput>;

function policyIssues(error: z.ZodError): ReturnType<typeof issuesFromZod> {
  return issuesFromZod(error, ["policy"]);
}

async function resolvePolicy(
  prisma: Db,
  input: StartReplayInput,
): Promise<{ policy: Policy; policyVersionId: string | null }> {
  if (input.policyVersionId) {
    const version = await getPolicyVersionById(prisma, input.policyVersionId);
    if (!version) throw notFound("policy version", input.policyVersionId, "policyVersionId");
    const parsed = Policy.safeParse(version.document);
    if (!parsed.success)
      throw new AppError(
        "invalid_policy",
        "The stored policy version is not a valid policy document.",
        policyIssues(parsed.error),
      );
    return { policy: parsed.data, policyVersionId: version.id };
  }
  const parsed = Policy.safeParse(input.policy);
  if (!parsed.success)
    throw new AppError("invalid_policy", "The policy document is not valid.", policyIssues(parsed.error));
  return { policy: parsed.data, policyVersionId: null };
}

type SessionContext = { agentId: string; agent: { adapter: string }; agentVersion: { capabilities: string[] } };

async function validateForSession(prisma: Db, session: SessionContext, policy: Policy) {
  const adapter = Adapter.safeParse(session.agent.adapter);
  return checkPolicy(policy, {
    adapter: adapter.success ? adapter.data : "generic",
    capabilities: session.agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    use: "replay",
    knownTools: await knownTools(prisma, session.agentId),
  });
}

/**
 * The caveats `createReplay` would return as warnings for each policy, before
 * anything is started, so the start form can show them beside the choice.
 * A document that is not a valid policy gets its schema issues.
 */
export async function replayPolicyWarnings(
  principal: Principal,
  input: PolicyWarningsInput,
  prisma: Db,
): Promise<string[][]> {
  authorize(principal, "replays.read");
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) return input.documents.map(() => []);
  return Promise.all(
    input.documents.map(async (document) => {
      const parsed = Policy.safeParse(document);
      if (!parsed.success) return parsed.error.issues.map((i) => i.message);
      const validation = await validateForSession(prisma, session, parsed.data);
      return [...validation.errors, ...validation.warnings].map((i) => i.message);
    }),
  );
}

/** Runs inside the transaction that stores new replays (an investigation records its probe's replays with them); throwing stores nothing. */
export type StoredHook = (tx: DbClient, replayIds: string[]) => Promise<void>;

export interface StartedReplay {
  id: string;
  warnings: PolicyIssue[];
  /** Repeated trials: every trial's replay id (the first is `id`), sharing `trialSetId`. */
  trialSetId?: string;
  trialIds?: string[];
}

/**
 * Checks a replay request and stores the replay (status `running`) with its
 * policy snapshot and hash. Everything that can be refused is refused here,
 * before a row exists: unknown session, bad policy, edits of the wrong kind or
 * seq, a live model policy without an endpoint.
 */
async function checkAndStoreReplay(
  prisma: Db,
  input: StartReplayInput,
  createdBy: string,
  onStored?: StoredHook,
): Promise<StartedReplay> {
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) throw notFound("session", input.sessionId, "sessionId");
  const { policy, policyVersionId } = await resolvePolicy(prisma, input);

  // The stored form: the checks below read seqs, kinds and names, never a model call's whole input.
  const base: SessionEvent[] = await sessionEventsForRun(prisma, session.id);
  const edits = validateEdits(base, input.edits ?? []);
  if (!edits.ok) {
    throw new AppError(
      "invalid_edits",
      `The edits do not fit this session: ${edits.issues.map((i) => i.message).join(" ")}`,
      edits.issues.map((i) => ({ path: formatIssuePath(["edits", ...i.path]), message: i.message })),
    );
  }
  if (LIVE_MODEL_POLICIES.has(policy.model) && !(await hasModelEndpoint(prisma))) {
    throw new AppError(
      "executor_missing",
      policy.model === "recorded-until-divergence"
        ? "Fork-live runs the model live from the first step whose input changed, and no model endpoint is configured (Settings → Executors). Without a live model, edits cannot change what the agent does: every later model output would be copied from the record."
        : `Model policy "${policy.model}" runs a live model, and no model endpoint is configured (Settings → Executors).`,
      [{ path: "policy.model", message: "needs a model endpoint" }],
    );
  }
  const counterfactual = await prepareCounterfactual(prisma, input, policy.model, base);
  const validation = await validateForSession(prisma, session, policy);
  // The same check as the editor's (checkPolicy): its errors block, its warnings travel with the replay.
  const blocking = validation.errors;
  if (blocking.length > 0) {
    throw new AppError(
      "invalid_policy",
      blocking.map((i) => i.message).join(" "),
      blocking.map((i) => ({ path: formatIssuePath(["policy", ...i.path]), message: i.message })),
    );
  }
  // Repeated trials are ordinary replays sharing a trial-set id: one row each, written together.
  const trials = counterfactual.trials;
  const trialSetId = trials > 1 ? `ts_${randomUUID()}` : null;
  const ids = await withTransaction(prisma, async (tx) => {
    const created: string[] = [];
    for (let k = 0; k < trials; k++) {
      const { id } = await createReplayRow(tx, {
        sessionId: session.id,
        policy,
        policyHash: policyHash(policy),
        policyVersionId,
        edits: edits.plan.all,
        createdBy,
      });
      await setReplayCounterfactual(tx, id, {
        modelEndpointId: counterfactual.modelEndpointId,
        checks: counterfactual.checks,
        trialSetId,
        trialIndex: trialSetId ? k : null,
      });
      created.push(id);
    }
    if (onStored) await onStored(tx, created);
    return created;
  });
  return {
    id: ids[0]!,
    warnings: [...validation.errors, ...validation.warnings],
    ...(trialSetId ? { trialSetId, trialIds: ids } : {}),
  };
}

type ExtraLog = { fixture?: NewFixture; approval?: ApprovalEntry };

/**
 * An error as words a user may read: our own errors' messages, a database
 * error's mapped message; anything else (a driver's or Prisma's text, which
 * names tables, queries and hosts) stays in the server log.
 */
function describeError(error: unknown): string {
  if (error instanceof AppError || error instanceof ExecutorError) return error.message;
  const fromDb = appErrorFromDatabase(error);
  if (fromDb) return fromDb.message;
  console.error("Replay error:", error);
  return "an unexpected server error (details are in the server log)";
}

async function settleFailure(
  prisma: Db,
  replayId: string,
  actor: string | null,
  extra: ExtraLog,
  result: ReplayResult | null,
  error: unknown,
): Promise<RunFailure> {
  const code: RunFailureCode = result ? "save_failed" : "replay_failed";
  const message = result
    ? `The replay ran (${result.status.replaceAll("_", " ")}), but its result could not be saved: ${describeError(error)}`
    : `The replay could not run: ${describeError(error)}`;
  const entries = [...(extra.approval ? [extra.approval] : []), ...(result?.newLogEntries ?? [])];
  try {
    await withTransaction(prisma, async (tx) => {
      if (extra.fixture) await insertFixture(tx, replayId, extra.fixture);
      await appendLogEntries(tx, replayId, entries, actor);
      await markReplayFailed(
        tx,
        replayId,
        code,
        entries.length > 0 || extra.fixture
          ? `${message} What it obtained (${[extra.fixture ? "the fixture" : null, entries.length > 0 ? `${entries.length} log entr${entries.length === 1 ? "y" : "ies"}` : null].filter(Boolean).join(", ")}) is kept in the branch log.`
          : message,
      );
    });
    return { code, message };
  } catch (second) {
    const both = `${message} Storing its log failed too: ${describeError(second)}`;
    try {
      await withTransaction(prisma, async (tx) => markReplayFailed(tx, replayId, code, both));
    } catch (third) {
      console.error(`Replay ${replayId} could not be marked failed:`, third);
    }
    return { code, message: both };
  }
}

/**
 * Attaches this run's notes (NULs replaced in an executor answer) to their
 * steps; a step whose result came from the log keeps the notes it had when the
 * result was obtained.
 */

/**
 * Attaches this run's notes (NULs replaced in an executor answer) to their
 * steps; a step whose result came from the log keeps the notes it had when the
 * result was obtained.
 */
async function noteSteps(prisma: Db, replayId: string, result: ReplayResult, fresh: ReadonlyMap<number, string[]>) {
  const earlier = result.steps.some((s) => s.logEntryId)
    ? await stepNotesByLogEntry(prisma, replayId)
    : new Map<string, string[]>();
  for (const step of result.steps) {
    const notes = fresh.get(step.seq) ?? (step.logEntryId ? earlier.get(step.logEntryId) : undefined);
    if (notes) step.notes = notes;
  }
}

/** Engine hooks (progress, cancel) as the engine's `ReplayInput` takes them. */
interface EngineHooks {
  onProgress?: (p: { done: number; total: number }) => void;
  isCancelled?: () => boolean | Promise<boolean>;
}

/** How a worker runs a replay it holds (lib/jobs): its lease, and what to do at step boundaries. */
export interface RunHooks extends EngineHooks {
  /** The lease owner: the run's result is stored only while it still holds the replay (and the lease let go with it). */
  owner?: string;
  /** No earlier run stored steps for this replay. */
  fresh?: boolean;
  /** The last progress the run reported, stored with its result. */
  lastProgress?: () => { done: number; total: number } | null;
  /** Told after each call outside the database (live tool or model, simulator). */
  onExternalCall?: () => void;
  /**
   * Looked up immediately before each call outside goes out (with `client`, the transaction recording a live
   * tool call): true stops the run as cancelled without making the call.
   */
  cancelledNow?: (client: DbClient) => Promise<boolean>;
}

/** A run whose worker lost its lease (another worker took the replay over): it calls and stores nothing more. */
export class LeaseLost extends RunInterrupted {
  constructor(replayId: string) {
    super(`Replay ${replayId} was taken over by another worker; this run's result is not stored.`);
    this.name = "LeaseLost";
  }
}

/** A live call was made and its answer could not be kept: the run ends; the next one waits for the answer instead of calling again. */
class AnswerNotKept extends RunInterrupted {
  constructor(tool: string, cause: unknown) {
    super(`The answer of the live call to "${tool}" could not be stored: ${describeError(cause)}`);
    this.name = "AnswerNotKept";
  }
}

/** Answers a call from the result entry a run stored for it. */
function answerFromEntry(payload: unknown): ToolAnswer & { durationMs?: number } {
  const entry = payload as {
    output?: unknown;
    error?: { type: string; message: string } | null;
    durationMs?: number | null;
  };
  const durationMs = entry.durationMs ?? undefined;
  return entry.error
    ? { error: entry.error, ...(durationMs !== undefined ? { durationMs } : {}) }
    : { output: entry.output ?? null, ...(durationMs !== undefined ? { durationMs } : {}) };
}

/**
 * Wraps the executors so each live or simulated result is stored in the branch
 * log as soon as it is obtained (the same entry, with the same id, the engine
 * appends): a run killed after a live call keeps it, and the next run reads it
 * from the log instead of calling again.
 */
function writeAhead(
  executors: { tool: ToolExecutor; simulator: ToolSimulator; model?: ModelExecutor },
  store: (entry: BranchLogEntry) => Promise<void>,
  now: () => string,
  live: {
    /**
     * Records that this run makes the call, before it is made (lease-fenced, once per call); throws
     * `CancelledBeforeCall` (recording nothing) when the replay was cancelled.
     */
    begin: (entryId: string, what: string) => Promise<LiveCallStart>;
    /** Throws `CancelledBeforeCall` when the replay was cancelled (before a model or simulator call goes out). */
    beforeCall: (what: string) => Promise<void>;
    /** Stores a live call's answer, lease or not: it is the truth about a call that was made. */
    keep: (entry: BranchLogEntry) => Promise<void>;
    lost: () => Error;
  },
) {
  const toolEntry = (call: ToolCall, answer: ToolAnswer & { durationMs?: number }) => ({
    at: now(),
    step: call.step,
    tool: call.tool,
    callId: call.callId,
    cacheKey: call.cacheKey,
    args: call.args,
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    durationMs: answer.durationMs ?? null,
  });
  const thrown = (error: unknown) => ({
    error: { type: "ToolExecutionError", message: error instanceof Error ? error.message : String(error) },
  });
  const key = (call: ToolCall) => `${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`;
  const keep = async (entry: BranchLogEntry, tool: string) => {
    try {
      await live.keep(entry);
    } catch {
      try {
        await live.keep(entry);
      } catch (again) {
        throw new AnswerNotKept(tool, again);
      }
    }
  };
  const tool: ToolExecutor = async (call) => {
    const id = `live:${key(call)}`;
    // Recorded before the call: a later run that finds this without a result never calls again.
    const start = await live.begin(id, `the "${call.tool}" call`);
    if (start.kind === "lease_lost") throw live.lost();
    if (start.kind === "answered") return answerFromEntry(start.payload);
    if (start.kind === "in_doubt")
      throw new LiveCallInDoubt(
        `"${call.tool}" was called live by an earlier run (${start.startedAt.toISOString()}) that stopped before its answer was kept. It is not called again, since it may already have acted: supply the answer it gave, from the tool's own records, to continue.`,
      );
    let answer: ToolAnswer & { durationMs?: number };
    try {
      answer = await executors.tool(call);
    } catch (error) {
      await keep({ type: "live_tool_result", id, ...toolEntry(call, thrown(error)) }, call.tool);
      throw error;
    }
    await keep({ type: "live_tool_result", id, ...toolEntry(call, answer) }, call.tool);
    return answer;
  };
  const simulator: ToolSimulator = async (call) => {
    await live.beforeCall(`the simulated "${call.tool}" call`);
    let answer: ToolAnswer & { durationMs?: number };
    try {
      answer = await executors.simulator(call);
    } catch (error) {
      const entry = toolEntry(call, thrown(error));
      await store({ type: "simulated_tool_result", id: `sim:${key(call)}`, ...entry, model: call.model });
      throw error;
    }
    await store({
      type: "simulated_tool_result",
      id: `sim:${key(call)}`,
      ...toolEntry(call, answer),
      model: call.model,
    });
    return answer;
  };
  const inner = executors.model;
  const model: ModelExecutor | undefined = inner
    ? async (request) => {
        await live.beforeCall(`model step ${request.modelStep}`);
        const result = await inner(request);
        await store({
          type: "live_model_output",
          id: `model:${request.modelStep}:${request.step}`,
          at: now(),
          step: request.step,
          modelStep: request.modelStep,
          model: result.model ?? request.model ?? "unknown",
          output: result.output,
          usage: result.usage ?? null,
          durationMs: result.durationMs ?? null,
        });
        return result;
      }
    : undefined;
  return { tool, simulator, ...(model ? { model } : {}) };
}

/**
 * Runs (or re-runs) a replay with its log first (fixtures, approvals, live
 * results obtained by earlier runs), then persists what the run produced in
 * one transaction. Live and simulated results are stored as soon as they are
 * obtained, so a run that is killed repeats no live call when it runs again.
 * With `hooks.owner` (a worker holding the replay's lease) the result is
 * stored only while the lease is still held. An executor failure stops the
 * branch as failed with what it obtained kept; any other failure marks it
 * failed, keeping what it can.
 */
async function executeReplay(prisma: Db, replayId: string, hooks: RunHooks = {}): Promise<ReplayResult | null> {
  const row = await replayRunContext(prisma, replayId);
  if (!row) throw notFound("replay", replayId);
  const owner = hooks.owner;
  const stillHeld = async (tx: DbClient) => {
    if (owner && !(await holdsReplayLease(tx, replayId, owner))) throw new LeaseLost(replayId);
  };

  let result: ReplayResult | null = null;
  let inputError: ReplayInputError | null = null;
  try {
    // Model inputs in the stored form, in and out: the engine replays a long conversation in O(steps).
    // Read a window at a time: one query for a 10,000-event session would hold the embedded database's one connection.
    const base = await sessionEventsForRun(prisma, row.sessionId);
    if (base.length === 0 && !(await sessionContext(prisma, row.sessionId)))
      throw new Error(`The base session of replay "${replayId}" no longer exists.`);
    const log: BranchLogEntry[] = await loadBranchLog(prisma, replayId);
    const policy = Policy.parse(row.policySnapshot);
    const adapter = Adapter.safeParse(row.session.agent.adapter);
    const nulNotes = new Map<number, string[]>();
    const onNul: NulReport = (r) => {
      const note = `The ${r.executor} executor's answer for "${r.name}" held ${r.replaced} NUL character${r.replaced === 1 ? "" : "s"} (U+0000), replaced with U+FFFD: PostgreSQL cannot store them.`;
      nulNotes.set(r.step, [...(nulNotes.get(r.step) ?? []), note]);
    };
    const now = () => new Date().toISOString();
    const cancelledNow = hooks.cancelledNow;
    const writeAheadExecutors = writeAhead(
      {
        tool: toolExecutor(prisma, onNul),
        simulator: toolSimulator(prisma, onNul),
        ...(LIVE_MODEL_POLICIES.has(policy.model) ? { model: modelExecutor(prisma, onNul, row.modelEndpointId) } : {}),
      },
      (entry) =>
        withTransaction(prisma, async (tx) => {
          await stillHeld(tx);
          await appendLogEntries(tx, replayId, [entry], row.createdBy);
        }),
      now,
      {
        begin: (entryId, what) =>
          withTransaction(prisma, async (tx) => {
            const start = await beginLiveCall(tx, replayId, entryId, owner ?? null);
            // Looked up after the call is recorded, right before it goes out: a cancel rolls the record back too.
            if (start.kind === "go" && cancelledNow && (await cancelledNow(tx))) throw new CancelledBeforeCall(what);
            return start;
          }),
        beforeCall: async (what) => {
          if (cancelledNow && (await cancelledNow(prisma))) throw new CancelledBeforeCall(what);
        },
        keep: (entry) => withTransaction(prisma, (tx) => appendLogEntries(tx, replayId, [entry], row.createdBy)),
        lost: () => new LeaseLost(replayId),
      },
    );
    // A call outside (a live tool, a live model, a simulator) took time: the next step boundary looks the cancel up.
    const told = hooks.onExternalCall;
    const after =
      <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        try {
          return await fn(...args);
        } finally {
          told?.();
        }
      };
    const outside = told
      ? {
          tool: after(writeAheadExecutors.tool),
          simulator: after(writeAheadExecutors.simulator),
          ...(writeAheadExecutors.model ? { model: after(writeAheadExecutors.model) } : {}),
        }
      : writeAheadExecutors;
    // Looked up at every step boundary, it also gives the event loop a turn every 15 ms: the engine and the
    // embedded database answer in microtasks only, so a long run would otherwise let no request in until it ends.
    const pause = pauser();
    const isCancelled = hooks.isCancelled;
    const engineHooks: EngineHooks = {
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      isCancelled: () => {
        const paused = pause();
        if (!paused) return isCancelled ? isCancelled() : false;
        return paused.then(() => (isCancelled ? isCancelled() : false));
      },
    };
    try {
      result = await replay({
        base,
        inputs: "compact",
        policy,
        edits: Edits.parse(row.edits),
        log,
        tools: await knownTools(prisma, row.session.agentId),
        ...(adapter.success ? { adapter: adapter.data } : {}),
        historyLookup: historyLookupFor(prisma, {
          agentId: row.session.agentId,
          cohortAgentVersionId: row.experiment?.agentVersionId ?? null,
          // The chosen cohort only: an experiment over a subset answers from its own sessions.
          cohortExperimentId: row.experiment?.id ?? null,
        }),
        cohort: row.experiment ? { agentVersionId: row.experiment.agentVersionId } : null,
        executors: outside,
        now,
        ...engineHooks,
      });
    } catch (error) {
      if (!(error instanceof ReplayInputError)) throw error;
      inputError = error;
    }
    const done = result;
    if (done) {
      await noteSteps(prisma, replayId, done, nulNotes);
      // The steps are written ahead in short pieces, where readers do not look; the transaction below only
      // publishes them, so it holds the connection briefly and readers still see the steps replaced at once.
      const attempt = randomUUID();
      await writeStepDrafts(prisma, replayId, attempt, done.steps);
      await withTransaction(
        prisma,
        async (tx) => {
          // Fenced by the lease (the result's update is the first write and takes the row's lock).
          const stored = await saveRunResult(tx, replayId, done, new Date(), {
            ...(owner !== undefined ? { owner } : {}),
            fresh: hooks.fresh ?? false,
            progress: hooks.lastProgress?.() ?? null,
            storeSteps: (client) => publishStepDrafts(client, replayId, attempt),
          });
          if (!stored) throw new LeaseLost(replayId);
          await appendLogEntries(tx, replayId, done.newLogEntries, row.createdBy);
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
      await settleChecks(prisma, replayId, done);
      return done;
    }
  } catch (error) {
    if (error instanceof LeaseLost) throw error;
    await settleFailure(prisma, replayId, row.createdBy, {}, result, error);
    return null;
  }

  // The engine refused its input before running anything.
  const refused = inputError!;
  await markReplayFailed(prisma, replayId, refused.code, refused.message);
  return null;
}

/**
 * Checks and stores a replay without running it (status `queued`); run it
 * with `runReplay` (in the background: the dashboard polls its progress).
 * Repeated trials are stored as one replay each (`trialIds`), to run one by one.
 */
export async function createReplay(
  principal: Principal,
  input: StartReplayInput,
  prisma: Db,
  onStored?: StoredHook,
): Promise<StartedReplay> {
  authorize(principal, "replays.run");
  return checkAndStoreReplay(prisma, input, principal.name, onStored);
}

/**
 * The background work of a replay: runs a stored replay to its first stop and
 * stores what it produced. It never leaves the row `running`: an unexpected
 * failure marks it failed. The unit of work a job queue runs.
 */
export async function runReplay(principal: Principal, input: ReplayRef, prisma: Db): Promise<ReplayResult | null> {
  authorize(principal, "replays.run");
  try {
    return await executeReplay(prisma, input.replayId);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw error;
    // executeReplay settles its own failures; this is the last guard against a row left `running` for ever.
    const state = await readReplayState(prisma, input.replayId);
    if (state?.status === "running")
      await withTransaction(prisma, async (tx) =>
        markReplayFailed(tx, input.replayId, "replay_failed", `The replay could not run: ${describeError(error)}`),
      );
    throw error;
  }
}

/** Runs queued replays one after another in this call, each under a lease like a worker's (no queue: tests, scripts). */
export const runNow = (prisma: Db) => async (replayIds: readonly string[]) => {
  for (const id of replayIds) await runQueuedReplay(prisma, id, { owner: `inline:${process.pid}:${randomUUID()}` });
};

/**
 * Puts stored replays on the job queue (their rows committed first: a worker may take one the moment it is queued;
 * one left unqueued by a stop in between is found by the sweeper). With no queue plugged in, runs them in this call.
 */
export async function enqueueReplaysFor(prisma: Db, replayIds: readonly string[], deps?: QueueDeps): Promise<void> {
  const queue = jobQueueFor(deps);
  if (queue) await queue.enqueueReplays(replayIds);
  else await runNow(prisma)(replayIds);
}

export interface QueuedRunOptions {
  owner: string;
  /** How long a lease lasts without a heartbeat; a worker killed mid-run is replaced after it. */
  leaseMs?: number;
  /** Runs started before this one is given up (a replay that kills its worker every time). */
  maxAttempts?: number;
}

export type QueuedRunOutcome = "ran" | "busy" | "idle" | "cancelled" | "gave_up" | "lease_lost";

/**
 * What a job worker does with a replay id: claims the replay (queued, or
 * running under a lease that ran out), holds it with a heartbeat, runs it with
 * its log first, stores the result, and lets go. A replay another worker
 * holds is left to it; a finished one is left alone; so a job delivered twice
 * runs its replay once.
 */
export async function runQueuedReplay(prisma: Db, replayId: string, opts: QueuedRunOptions): Promise<QueuedRunOutcome> {
  const leaseMs = opts.leaseMs ?? 30_000;
  const maxAttempts = opts.maxAttempts ?? 3;
  const claim = await claimReplayRun(prisma, replayId, opts.owner, leaseMs);
  if (claim.kind !== "claimed") return claim.kind;
  const experimentId = claim.experimentId;
  let finished = false;
  /** The run stored its result, which let the lease go. */
  let released = false;
  try {
    if (claim.cancelRequested) {
      await markReplayCancelled(prisma, replayId, "Cancelled before it ran.");
      finished = true;
      return "cancelled";
    }
    if (claim.attempts > maxAttempts) {
      const lastError = await replayLastError(prisma, replayId);
      await markReplayFailed(
        prisma,
        replayId,
        "gave_up",
        `Stopped after ${maxAttempts} attempts: each run ended without a result (its worker stopped or crashed).${lastError ? ` Last error: ${lastError}` : ""} What earlier runs obtained is kept in the branch log.`,
      );
      finished = true;
      return "gave_up";
    }
    let lost = false;
    const heartbeat = setInterval(
      () => {
        renewReplayLease(prisma, replayId, opts.owner, leaseMs).then(
          (held) => {
            if (!held) lost = true;
          },
          (error: unknown) => console.error(`Replay ${replayId}: heartbeat failed:`, error),
        );
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
    // At most a progress write every half second, the first half a second in: a short run writes none (its last
    // progress is stored with its result). The engine reports progress at every step boundary.
    let lastProgress = Date.now();
    let latest: { done: number; total: number } | null = null;
    // A cancel is looked up at the first step boundary after each call outside, and otherwise at most every quarter
    // second (the claim said there was none); immediately before each call outside goes out too (`cancelledNow`).
    let lastCancelCheck = Date.now();
    let outsideCall = false;
    let cancelRequested = false;
    try {
      const result = await executeReplay(prisma, replayId, {
        owner: opts.owner,
        fresh: claim.stepCount === 0,
        lastProgress: () => latest,
        onExternalCall: () => {
          outsideCall = true;
        },
        // One indexed read per call outside, so a cancel that lands after the last step boundary still stops it.
        cancelledNow: async (client) => {
          if (!cancelRequested) cancelRequested = await replayCancelRequested(client, replayId);
          return cancelRequested;
        },
        onProgress: ({ done, total }) => {
          latest = { done, total };
          const at = Date.now();
          if (at - lastProgress < 500) return;
          lastProgress = at;
          saveReplayProgress(prisma, replayId, opts.owner, done, total).catch((error: unknown) =>
            console.error(`Replay ${replayId}: progress not saved:`, error),
          );
        },
        isCancelled: async () => {
          if (lost || cancelRequested) return true;
          const at = Date.now();
          if (!outsideCall && at - lastCancelCheck < 250) return false;
          lastCancelCheck = at;
          outsideCall = false;
          cancelRequested = await replayCancelRequested(prisma, replayId);
          return cancelRequested;
        },
      });
      released = result !== null;
    } catch (error) {
      if (error instanceof LeaseLost) return "lease_lost";
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
    finished = true;
    return "ran";
  } finally {
    if (!released) await releaseReplayLease(prisma, replayId, opts.owner, finished);
    if (experimentId) await settleExperiment(prisma, experimentId);
  }
}

export interface StartReplayDeps extends QueueDeps {
  /** Runs once the replay is stored, before it is queued (a worker may take it the moment it is): the API reads its answer here. */
  beforeQueued?: (started: StartedReplay) => Promise<void>;
}

/**
 * Checks and stores a new replay, and puts it on the queue: it answers with the replay `queued`.
 * Repeated trials are stored as one replay each, one job each.
 */
export async function startReplay(
  principal: Principal,
  input: StartReplayInput,
  prisma: Db,
  deps: StartReplayDeps = {},
): Promise<StartedReplay> {
  authorize(principal, "replays.run");
  const started = await checkAndStoreReplay(prisma, input, principal.name);
  await deps.beforeQueued?.(started);
  await enqueueReplaysFor(prisma, started.trialIds ?? [started.id], deps);
  return started;
}

/** Paused or awaiting approval → queued, if nobody changed the replay since it was read (else 409, nothing stored). */
async function claimForResume(tx: DbClient, replayId: string, updatedAt: Date) {
  if (!(await claimReplayForResume(tx, replayId, updatedAt)))
    throw new AppError(
      "conflict",
      "The replay is already being resumed (another fixture or decision was sent first); reload and try again.",
    );
}

async function pendingOf(prisma: Db, replayId: string, waitingFor: PendingCall["waitingFor"]) {
  const state = await readReplayState(prisma, replayId);
  if (!state) throw notFound("replay", replayId);
  const pending = state.pending as PendingCall | null;
  const wanted = waitingFor === "fixture" ? "paused" : "awaiting_approval";
  if (state.status !== wanted || !pending || pending.waitingFor !== waitingFor) {
    const what = waitingFor === "fixture" ? "a fixture" : "an approval";
    throw new AppError(
      "wrong_state",
      `Replay "${replayId}" is ${state.status.replaceAll("_", " ")} and waits for no ${waitingFor}; only a ${wanted.replaceAll("_", " ")} replay takes ${what}.`,
    );
  }
  return { state, pending };
}

/** Stores a fixture for the pending call and resumes the branch (a resume). Nothing changes when it is refused. */
export async function supplyFixture(
  principal: Principal,
  input: SupplyFixtureInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<NewFixture> {
  authorize(principal, "replays.run");
  const { replayId } = input;
  const { state, pending } = await pendingOf(prisma, replayId, "fixture");
  if (
    (input.callId !== undefined && input.callId !== pending.callId) ||
    (input.tool !== undefined && input.tool !== pending.tool)
  ) {
    throw new AppError(
      "wrong_state",
      `The branch waits for ${pending.tool} (call ${pending.callId}) at step ${pending.step}, not ${input.tool ?? pending.tool} (call ${input.callId ?? pending.callId}).`,
      [
        {
          path: input.callId !== pending.callId ? "callId" : "tool",
          message: `expected ${input.callId !== pending.callId ? pending.callId : pending.tool}`,
        },
      ],
    );
  }
  const fixture: NewFixture = {
    id: `fx_${randomUUID()}`,
    toolName: pending.tool,
    callId: pending.callId,
    cacheKey: pending.cacheKey,
    stepIdx: pending.step,
    output: input.error ? null : input.output,
    error: input.error ?? null,
    author: principal.name,
    note: input.note,
    provenance: input.provenance ?? { source: "api" },
    createdAt: new Date(),
  };
  // The fixture is stored with the claim (paused → queued) before anything runs, so a run that is
  // killed keeps it; of two concurrent fixtures only the first claims the replay.
  await withTransaction(prisma, async (tx) => {
    await claimForResume(tx, replayId, state.updatedAt);
    await insertFixture(tx, replayId, fixture);
  });
  await enqueueReplaysFor(prisma, [replayId], deps);
  return fixture;
}

/** Records an approval decision for the pending live call (with actor and time) and resumes the branch (a resume). */
export async function decideApproval(
  principal: Principal,
  input: DecideApprovalInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<ApprovalEntry> {
  authorize(principal, "replays.run");
  const { replayId } = input;
  const { state, pending } = await pendingOf(prisma, replayId, "approval");
  if (input.callId !== undefined && input.callId !== pending.callId) {
    throw new AppError(
      "wrong_state",
      `The branch waits for a decision on ${pending.tool} (call ${pending.callId}), not call ${input.callId}.`,
    );
  }
  const approval: ApprovalEntry = {
    type: "approval",
    id: `ap_${randomUUID()}`,
    at: new Date().toISOString(),
    step: pending.step,
    tool: pending.tool,
    cacheKey: pending.cacheKey,
    decision: input.decision,
    by: principal.name,
    ...(input.note ? { note: input.note } : {}),
  };
  await withTransaction(prisma, async (tx) => {
    await claimForResume(tx, replayId, state.updatedAt);
    await appendLogEntries(tx, replayId, [approval], principal.name);
    await recordAudit(tx, {
      actorId: principal.userId,
      actorName: principal.name,
      action: approval.decision === "approved" ? "live_call.approved" : "live_call.rejected",
      target: replayId,
      detail: { tool: approval.tool, callId: pending.callId, ...(approval.note ? { note: approval.note } : {}) },
    });
  });
  await enqueueReplaysFor(prisma, [replayId], deps);
  return approval;
}

// ---------------------------------------------------------------------------
// Reading

export { isTerminal };

/** A replay with its comparison, for the comparison page. */
export async function getReplayComparison(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  const view = await loadReplayComparison(prisma, input.replayId);
  if (!view) throw notFound("replay", input.replayId);
  return view;
}

/** Status and step count, for the progress poll. */
export async function getReplayState(principal: Principal, input: ReplayRef, prisma: Db) {
  authorize(principal, "replays.read");
  const state = await readReplayState(prisma, input.replayId);
  if (!state) throw notFound("replay", input.replayId);
  return {
    status: state.status,
    stepCount: state.stepCount,
    progress: state.progressTotal ? { done: state.progressDone ?? 0, total: state.progressTotal } : null,
    cancelRequested: state.cancelRequested,
  };
}

/** Replays, newest first. */
export async function listReplays(principal: Principal, input: ListReplaysInput, prisma: Db) {
  authorize(principal, "replays.read");
  return readReplays(prisma, input);
}

/** Both sides of one aligned pair, for the comparison's detail panel. */
export async function getComparisonPair(principal: Principal, input: ComparisonPairInput, prisma: Db) {
  authorize(principal, "replays.read");
  const { replayId, pairId } = input;
  const numbers = pairId.slice(1).split("-").map(Number);
  const baseSeq = pairId.startsWith("p") || pairId.startsWith("r") ? numbers[0]! : null;
  const branchSeq = pairId.startsWith("p") ? numbers[1]! : pairId.startsWith("i") ? numbers[0]! : null;
  const pair = await comparisonPairRows(prisma, replayId, baseSeq, branchSeq);
  if (!pair) throw notFound("replay", replayId);
  return { ...pair, changedPaths: changedPaths(pair.base, pair.branch) };
}
