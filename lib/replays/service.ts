/**
 * Replay orchestration: loads a base session, its tools and a policy, builds
 * the history lookup for wider scopes from the database, runs the engine with
 * the branch's log first, and persists steps, log, fixtures and status in one
 * transaction per run. Resuming (a fixture, an approval) re-runs the branch
 * from the start with its log, so a live call is never repeated.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  Edits,
  EventError,
  Policy,
  policyHash,
  replay,
  ReplayInputError,
  validateEdits,
  validatePolicy,
  Adapter,
  Capability,
  isReadOnly,
  type ApprovalEntry,
  type BranchLogEntry,
  type HistoryLookup,
  type KnownTool,
  type ModelExecutor,
  type PendingCall,
  type PolicyIssue,
  type ReplayResult,
  type SideEffect,
  type ToolAnswer,
  type ToolCall,
  type ToolExecutor,
  type ToolSimulator,
} from "@/lib/replay";
import type { Db, DbClient } from "@/lib/db/client";
import {
  appendLogEntries,
  createReplayRow,
  getReplayState,
  insertFixture,
  claimReplayForResume,
  loadBranchLog,
  markReplayFailed,
  saveRunResult,
  type NewFixture,
} from "@/lib/db/replays";
import { getSession, toSessionEvent } from "@/lib/db/sessions";
import {
  claimReplayRun,
  holdsReplayLease,
  markExperimentRunning,
  markReplayCancelled,
  releaseReplayLease,
  renewReplayLease,
  replayCancelRequested,
  saveReplayProgress,
  settleExperiment,
} from "@/lib/db/jobs";
import { ApiError, type ApiIssue } from "@/lib/http/errors";
import { formatIssuePath } from "@/lib/http/errors";
import { hasModelEndpoint, modelExecutor, toolExecutor, toolSimulator, type NulReport } from "./executors";

const LIVE_MODEL_POLICIES = new Set(["pinned-live", "compatible-live", "determinism-probe"]);

/** Where a value holds U+0000 (in a string or a key), which PostgreSQL cannot store in JSON. */
function nulPath(value: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) {
      const found = nulPath(value[k], [...path, k]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (key.includes("\u0000")) return [...path, key];
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
      message: "Contains a NUL character (U+0000), which cannot be stored; remove it.",
    });
}

export const StartReplayInput = z
  .object({
    sessionId: z.string().min(1, "Choose a session."),
    policy: z.unknown().optional(),
    policyVersionId: z.string().min(1).optional(),
    edits: Edits.optional(),
  })
  .superRefine((v, ctx) => refuseNul({ policy: v.policy, edits: v.edits }, ctx))
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
    note: z.string().trim().min(1, "Say where the value comes from (a note is required)."),
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

function issuesOf(
  issues: readonly { path: readonly (string | number)[]; message: string }[],
  prefix: (string | number)[] = [],
): ApiIssue[] {
  return issues.map((i) => ({ path: formatIssuePath([...prefix, ...i.path]), message: i.message }));
}

/** Side-effect classes for the engine: the agent's declared tools, with endpoints marked read-only counting as `read` when undeclared. */
async function knownTools(client: DbClient, agentId: string): Promise<KnownTool[]> {
  const [tools, endpoints] = await Promise.all([
    client.tool.findMany({ where: { agentId }, select: { name: true, sideEffect: true } }),
    client.toolEndpoint.findMany({ where: { readOnly: true }, select: { toolName: true } }),
  ]);
  const readOnlyEndpoints = new Set(endpoints.map((e) => e.toolName));
  return tools.map((t) => {
    const declared = t.sideEffect as SideEffect;
    const sideEffect: SideEffect = declared === "unknown" && readOnlyEndpoints.has(t.name) ? "read" : declared;
    return { name: t.name, sideEffect };
  });
}

/** History for `agent` (the agent's sessions that are not replays) and `cohort_version` (the experiment's agent version) scopes. */
export function historyLookupFor(
  client: DbClient,
  scope: { agentId: string; cohortAgentVersionId: string | null },
): HistoryLookup {
  return async (query) => {
    const session =
      query.scope === "agent"
        ? { agentId: scope.agentId, isReplay: false }
        : scope.cohortAgentVersionId
          ? { agentVersionId: scope.cohortAgentVersionId }
          : null;
    if (!session) return null;
    const event = await client.event.findFirst({
      where: { kind: "tool_call", name: query.tool, cacheKey: query.cacheKey, status: "completed", session },
      orderBy: [{ session: { createdAt: "desc" } }, { seq: "desc" }],
      select: { sessionId: true, seq: true, output: true },
    });
    return event
      ? { sessionId: event.sessionId, seq: event.seq, output: event.output ?? null, status: "completed" }
      : null;
  };
}

async function resolvePolicy(
  client: DbClient,
  input: StartReplayInput,
): Promise<{ policy: Policy; policyVersionId: string | null }> {
  if (input.policyVersionId) {
    const version = await client.policyVersion.findUnique({
      where: { id: input.policyVersionId },
      select: { id: true, document: true },
    });
    if (!version)
      throw new ApiError(404, "policy_version_not_found", `No policy version with id "${input.policyVersionId}".`);
    const parsed = Policy.safeParse(version.document);
    if (!parsed.success)
      throw new ApiError(
        422,
        "invalid_policy",
        "The stored policy version is not a valid policy document.",
        issuesOf(
          parsed.error.issues.map((i) => ({
            path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
            message: i.message,
          })),
          ["policy"],
        ),
      );
    return { policy: parsed.data, policyVersionId: version.id };
  }
  const parsed = Policy.safeParse(input.policy);
  if (!parsed.success) {
    throw new ApiError(
      400,
      "invalid_policy",
      "The policy document is not valid.",
      issuesOf(
        parsed.error.issues.map((i) => ({
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          message: i.message,
        })),
        ["policy"],
      ),
    );
  }
  return { policy: parsed.data, policyVersionId: null };
}

type SessionContext = { agentId: string; agent: { adapter: string }; agentVersion: { capabilities: string[] } };

async function validateForSession(client: DbClient, session: SessionContext, policy: Policy) {
  const adapter = Adapter.safeParse(session.agent.adapter);
  return validatePolicy(policy, {
    adapter: adapter.success ? adapter.data : "generic",
    capabilities: session.agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    inExperiment: false,
    knownTools: await knownTools(client, session.agentId),
  });
}

/**
 * The caveats `createReplay` would return as warnings for each policy, before
 * anything is started, so the start form can show them beside the choice.
 * A document that is not a valid policy gets its schema issues.
 */
export async function replayPolicyWarnings(
  client: DbClient,
  sessionId: string,
  documents: readonly unknown[],
): Promise<string[][]> {
  const session = await client.session.findUnique({
    where: { id: sessionId },
    select: { agentId: true, agent: { select: { adapter: true } }, agentVersion: { select: { capabilities: true } } },
  });
  if (!session) return documents.map(() => []);
  return Promise.all(
    documents.map(async (document) => {
      const parsed = Policy.safeParse(document);
      if (!parsed.success) return parsed.error.issues.map((i) => i.message);
      const validation = await validateForSession(client, session, parsed.data);
      return [...validation.errors, ...validation.warnings].map((i) => i.message);
    }),
  );
}

export interface StartedReplay {
  id: string;
  warnings: PolicyIssue[];
}

/**
 * Checks a replay request and stores the replay (status `running`) with its
 * policy snapshot and hash. Everything that can be refused is refused here,
 * before a row exists: unknown session, bad policy, edits of the wrong kind or
 * seq, a live model policy without an endpoint. Run it with `runReplay`.
 */
export async function createReplay(prisma: Db, raw: unknown, createdBy: string): Promise<StartedReplay> {
  const parsed = StartReplayInput.safeParse(raw);
  if (!parsed.success)
    throw new ApiError(
      400,
      "invalid_request",
      "The replay request is not valid.",
      issuesOf(
        parsed.error.issues.map((i) => ({
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          message: i.message,
        })),
      ),
    );
  const input = parsed.data;
  const session = await prisma.session.findUnique({
    where: { id: input.sessionId },
    select: {
      id: true,
      agentId: true,
      agent: { select: { adapter: true } },
      agentVersion: { select: { capabilities: true } },
    },
  });
  if (!session) throw new ApiError(404, "session_not_found", `No session with id "${input.sessionId}".`);
  const { policy, policyVersionId } = await resolvePolicy(prisma, input);

  const events = await prisma.event.findMany({ where: { sessionId: session.id }, orderBy: { seq: "asc" } });
  const base = events.map(toSessionEvent);
  const edits = validateEdits(base, input.edits ?? []);
  if (!edits.ok) {
    throw new ApiError(
      400,
      "invalid_edits",
      `The edits do not fit this session: ${edits.issues.map((i) => i.message).join(" ")}`,
      issuesOf(edits.issues, ["edits"]),
    );
  }
  if (LIVE_MODEL_POLICIES.has(policy.model) && !(await hasModelEndpoint(prisma))) {
    throw new ApiError(
      400,
      "model_executor_missing",
      `Model policy "${policy.model}" runs a live model, and no model endpoint is configured (Settings → Executors).`,
      [{ path: "policy.model", message: "needs a model endpoint" }],
    );
  }
  const validation = await validateForSession(prisma, session, policy);
  // Branchpoint's engine intercepts every tool itself, so the seeds' runtime caveats are warnings here,
  // except a scope it cannot answer outside an experiment.
  const blocking = validation.errors.filter((i) => i.code === "cohort_scope_outside_experiment" || i.code === "schema");
  if (blocking.length > 0) {
    throw new ApiError(
      400,
      "invalid_policy",
      blocking.map((i) => i.message).join(" "),
      blocking.map((i) => ({ path: formatIssuePath(["policy", ...i.path]), message: i.message })),
    );
  }
  const { id } = await createReplayRow(prisma, {
    sessionId: session.id,
    policy,
    policyHash: policyHash(policy),
    policyVersionId,
    edits: edits.plan.all,
    createdBy,
  });
  return { id, warnings: [...validation.errors, ...validation.warnings] };
}

type ExtraLog = { fixture?: NewFixture; approval?: ApprovalEntry };

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * After an unexpected throw (a database error, a result the database refused):
 * stores what the run obtained (the live and simulated results) and marks the
 * replay failed, each in a new transaction, so a replay never stays `running`
 * and a live result is never lost when it can be kept.
 */
async function settleFailure(
  prisma: Db,
  replayId: string,
  actor: string | null,
  extra: ExtraLog,
  result: ReplayResult | null,
  error: unknown,
): Promise<{ code: string; message: string }> {
  const code = result ? "save_failed" : "replay_failed";
  const message = result
    ? `The replay ran (${result.status.replaceAll("_", " ")}), but its result could not be saved: ${describeError(error)}`
    : `The replay could not run: ${describeError(error)}`;
  const entries = [...(extra.approval ? [extra.approval] : []), ...(result?.newLogEntries ?? [])];
  try {
    await prisma.$transaction(async (tx) => {
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
      await prisma.$transaction(async (tx) => markReplayFailed(tx, replayId, code, both));
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
async function noteSteps(prisma: Db, replayId: string, result: ReplayResult, fresh: ReadonlyMap<number, string[]>) {
  const earlier = new Map<string, string[]>();
  if (result.steps.some((s) => s.logEntryId)) {
    const rows = await prisma.replayStep.findMany({ where: { replayId }, select: { detail: true } });
    for (const row of rows) {
      const d = (row.detail ?? {}) as { logEntryId?: string; notes?: string[] };
      if (d.logEntryId && d.notes) earlier.set(d.logEntryId, d.notes);
    }
  }
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
  /** The lease owner: the run's result is stored only while it still holds the replay. */
  owner?: string;
}

/** A run whose worker lost its lease (another worker took the replay over): it stores nothing. */
export class LeaseLost extends Error {
  constructor(replayId: string) {
    super(`Replay ${replayId} was taken over by another worker; this run's result is not stored.`);
    this.name = "LeaseLost";
  }
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
  const tool: ToolExecutor = async (call) => {
    let answer: ToolAnswer & { durationMs?: number };
    try {
      answer = await executors.tool(call);
    } catch (error) {
      await store({ type: "live_tool_result", id: `live:${key(call)}`, ...toolEntry(call, thrown(error)) });
      throw error;
    }
    await store({ type: "live_tool_result", id: `live:${key(call)}`, ...toolEntry(call, answer) });
    return answer;
  };
  const simulator: ToolSimulator = async (call) => {
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
export async function runReplay(prisma: Db, replayId: string, hooks: RunHooks = {}): Promise<ReplayResult | null> {
  const row = await prisma.replay.findUnique({
    where: { id: replayId },
    select: {
      id: true,
      sessionId: true,
      policySnapshot: true,
      edits: true,
      createdBy: true,
      experiment: { select: { agentVersionId: true } },
      session: { select: { agentId: true, agent: { select: { adapter: true } } } },
    },
  });
  if (!row) throw new ApiError(404, "replay_not_found", `No replay with id "${replayId}".`);
  const owner = hooks.owner;
  const stillHeld = async (tx: DbClient) => {
    if (owner && !(await holdsReplayLease(tx, replayId, owner))) throw new LeaseLost(replayId);
  };

  let result: ReplayResult | null = null;
  let inputError: ReplayInputError | null = null;
  try {
    const session = await getSession(prisma, row.sessionId);
    if (!session) throw new Error(`The base session of replay "${replayId}" no longer exists.`);
    const base = session.events.map(toSessionEvent);
    const log: BranchLogEntry[] = await loadBranchLog(prisma, replayId);
    const policy = Policy.parse(row.policySnapshot);
    const adapter = Adapter.safeParse(row.session.agent.adapter);
    const nulNotes = new Map<number, string[]>();
    const onNul: NulReport = (r) => {
      const note = `The ${r.executor} executor's answer for "${r.name}" held ${r.replaced} NUL character${r.replaced === 1 ? "" : "s"} (U+0000), replaced with U+FFFD: PostgreSQL cannot store them.`;
      nulNotes.set(r.step, [...(nulNotes.get(r.step) ?? []), note]);
    };
    const now = () => new Date().toISOString();
    const executors = writeAhead(
      {
        tool: toolExecutor(prisma, onNul),
        simulator: toolSimulator(prisma, onNul),
        ...(LIVE_MODEL_POLICIES.has(policy.model) ? { model: modelExecutor(prisma, onNul) } : {}),
      },
      (entry) =>
        prisma.$transaction(async (tx) => {
          await stillHeld(tx);
          await appendLogEntries(tx, replayId, [entry], row.createdBy);
        }),
      now,
    );
    const engineHooks: EngineHooks = {
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      ...(hooks.isCancelled ? { isCancelled: hooks.isCancelled } : {}),
    };
    try {
      result = await replay({
        base,
        policy,
        edits: Edits.parse(row.edits),
        log,
        tools: await knownTools(prisma, row.session.agentId),
        ...(adapter.success ? { adapter: adapter.data } : {}),
        historyLookup: historyLookupFor(prisma, {
          agentId: row.session.agentId,
          cohortAgentVersionId: row.experiment?.agentVersionId ?? null,
        }),
        executors,
        now,
        ...engineHooks,
      });
    } catch (error) {
      if (!(error instanceof ReplayInputError)) throw error;
      inputError = error;
    }
    const done = result;
    if (done) await noteSteps(prisma, replayId, done, nulNotes);
    if (done) {
      await prisma.$transaction(
        async (tx) => {
          await stillHeld(tx);
          await appendLogEntries(tx, replayId, done.newLogEntries, row.createdBy);
          await saveRunResult(tx, replayId, done, new Date());
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
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

/** Puts replays on the job queue (lib/jobs); `runNow` runs them in this call instead (tests, scripts). */
export type Enqueue = (replayIds: readonly string[]) => Promise<void>;

/** Runs queued replays one after another in this call, each under a lease like a worker's. */
export const runNow =
  (prisma: Db): Enqueue =>
  async (replayIds) => {
    for (const id of replayIds) await runQueuedReplay(prisma, id, { owner: `inline:${process.pid}:${randomUUID()}` });
  };

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
  try {
    if (experimentId) await markExperimentRunning(prisma, experimentId);
    if (claim.cancelRequested || (await replayCancelRequested(prisma, replayId))) {
      await markReplayCancelled(prisma, replayId, "Cancelled before it ran.");
      finished = true;
      return "cancelled";
    }
    if (claim.attempts > maxAttempts) {
      const last = await prisma.replay.findUnique({ where: { id: replayId }, select: { error: true } });
      const lastError = (last?.error as { message?: string } | null)?.message;
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
    let lastProgress = 0;
    try {
      await runReplay(prisma, replayId, {
        owner: opts.owner,
        onProgress: ({ done, total }) => {
          // At most a write every half second; the engine calls this at every step boundary.
          const at = Date.now();
          if (at - lastProgress < 500 && done < total) return;
          lastProgress = at;
          saveReplayProgress(prisma, replayId, opts.owner, done, total).catch((error: unknown) =>
            console.error(`Replay ${replayId}: progress not saved:`, error),
          );
        },
        isCancelled: async () => lost || (await replayCancelRequested(prisma, replayId)),
      });
    } catch (error) {
      if (error instanceof LeaseLost) return "lease_lost";
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
    finished = true;
    return "ran";
  } finally {
    await releaseReplayLease(prisma, replayId, opts.owner, finished);
    if (experimentId) await settleExperiment(prisma, experimentId);
  }
}

/** Checks and stores a new replay, and puts it on the queue: it answers with the replay `queued`. */
export async function startReplay(
  prisma: Db,
  raw: unknown,
  createdBy: string,
  enqueue: Enqueue = runNow(prisma),
): Promise<StartedReplay> {
  const started = await createReplay(prisma, raw, createdBy);
  await enqueue([started.id]);
  return started;
}

/** Paused or awaiting approval → queued, if nobody changed the replay since it was read (else 409, nothing stored). */
async function claimForResume(tx: DbClient, replayId: string, updatedAt: Date) {
  if (!(await claimReplayForResume(tx, replayId, updatedAt)))
    throw new ApiError(
      409,
      "replay_busy",
      "The replay is already being resumed (another fixture or decision was sent first); reload and try again.",
    );
}

async function pendingOf(prisma: Db, replayId: string, waitingFor: PendingCall["waitingFor"]) {
  const state = await getReplayState(prisma, replayId);
  if (!state) throw new ApiError(404, "replay_not_found", `No replay with id "${replayId}".`);
  const pending = state.pending as PendingCall | null;
  const wanted = waitingFor === "fixture" ? "paused" : "awaiting_approval";
  if (state.status !== wanted || !pending || pending.waitingFor !== waitingFor) {
    const what = waitingFor === "fixture" ? "a fixture" : "an approval";
    throw new ApiError(
      409,
      "nothing_pending",
      `Replay "${replayId}" is ${state.status.replaceAll("_", " ")} and waits for no ${waitingFor}; only a ${wanted.replaceAll("_", " ")} replay takes ${what}.`,
    );
  }
  return { state, pending };
}

/** Stores a fixture for the pending call and resumes the branch. Nothing changes when it is refused. */
export async function supplyFixture(
  prisma: Db,
  replayId: string,
  raw: unknown,
  author: string,
  enqueue: Enqueue = runNow(prisma),
) {
  const parsed = FixtureInput.safeParse(raw);
  if (!parsed.success)
    throw new ApiError(
      400,
      "invalid_fixture",
      "The fixture is not valid.",
      issuesOf(
        parsed.error.issues.map((i) => ({
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          message: i.message,
        })),
      ),
    );
  const input = parsed.data;
  const { state, pending } = await pendingOf(prisma, replayId, "fixture");
  if (
    (input.callId !== undefined && input.callId !== pending.callId) ||
    (input.tool !== undefined && input.tool !== pending.tool)
  ) {
    throw new ApiError(
      409,
      "wrong_call",
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
    author,
    note: input.note,
    provenance: input.provenance ?? { source: "api" },
    createdAt: new Date(),
  };
  // The fixture is stored with the claim (paused → queued) before anything runs, so a run that is
  // killed keeps it; of two concurrent fixtures only the first claims the replay.
  await prisma.$transaction(async (tx) => {
    await claimForResume(tx, replayId, state.updatedAt);
    await insertFixture(tx, replayId, fixture);
  });
  await enqueue([replayId]);
  return fixture;
}

/** Records an approval decision for the pending live call (with actor and time) and resumes the branch. */
export async function decideApproval(
  prisma: Db,
  replayId: string,
  raw: unknown,
  by: string,
  enqueue: Enqueue = runNow(prisma),
) {
  const parsed = ApprovalInput.safeParse(raw);
  if (!parsed.success)
    throw new ApiError(
      400,
      "invalid_decision",
      "The decision is not valid.",
      issuesOf(
        parsed.error.issues.map((i) => ({
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          message: i.message,
        })),
      ),
    );
  const { state, pending } = await pendingOf(prisma, replayId, "approval");
  if (parsed.data.callId !== undefined && parsed.data.callId !== pending.callId) {
    throw new ApiError(
      409,
      "wrong_call",
      `The branch waits for a decision on ${pending.tool} (call ${pending.callId}), not call ${parsed.data.callId}.`,
    );
  }
  const approval: ApprovalEntry = {
    type: "approval",
    id: `ap_${randomUUID()}`,
    at: new Date().toISOString(),
    step: pending.step,
    tool: pending.tool,
    cacheKey: pending.cacheKey,
    decision: parsed.data.decision,
    by,
    ...(parsed.data.note ? { note: parsed.data.note } : {}),
  };
  await prisma.$transaction(async (tx) => {
    await claimForResume(tx, replayId, state.updatedAt);
    await appendLogEntries(tx, replayId, [approval], by);
  });
  await enqueue([replayId]);
  return approval;
}

export { isReadOnly };
