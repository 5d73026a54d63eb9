/**
 * Running a stored replay: the engine with the branch's log first, live calls written ahead, and the result (or
 * the failure) stored in one transaction.
 */
import {
  Edits,
  CancelledBeforeCall,
  LiveCallInDoubt,
  Policy,
  RunInterrupted,
  replay,
  ReplayInputError,
  resultEntryFields,
  Adapter,
  type ApprovalEntry,
  type BranchLogEntry,
  type ModelExecutor,
  type ReplayResult,
  type SessionEvent,
  type ToolAnswer,
  type ToolCall,
  type ToolExecutor,
  type ToolSimulator,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import type { DbClient } from "@/lib/db/client";
import { beginLiveCall, holdsReplayLease, type LiveCallStart } from "@/lib/db/jobs";
import { historyLookupFor } from "@/lib/db/history";
import { withTransaction } from "@/lib/db/transactions";
import { rawTransaction } from "@/lib/db/sql";
import {
  appendLogEntries,
  insertFixture,
  loadBranchLog,
  markReplayFailed,
  saveRunResult,
  type NewFixture,
} from "@/lib/db/replay-writes";
import { stepNotesByLogEntry } from "@/lib/db/replays";
import { sessionContext } from "@/lib/db/session-reads";
import { replayRunContext, sessionEventsForRun, type RunContext } from "@/lib/db/replay-save";
import { stepRows } from "@/lib/db/replay-steps";
import { pauser } from "@/lib/event-loop";
import { AppError, notFound } from "@/lib/errors";
import { ExecutorError, modelExecutor, toolExecutor, toolSimulator, type NulReport } from "@/lib/executors/live";
import { appErrorFromDatabase } from "@/lib/db/errors";
import { saveVerdicts } from "@/lib/db/checks";
import { LIVE_MODEL_POLICIES, judgeRun } from "../checks/counterfactual";
import { storeComparisonInRun } from "./comparison-store";
import type { RunFailure, RunFailureCode } from "@/lib/run-failures";

export type ExtraLog = { fixture?: NewFixture; approval?: ApprovalEntry };

/**
 * An error as words a user may read: our own errors' messages, a database
 * error's mapped message; anything else (a driver's or Prisma's text, which
 * names tables, queries and hosts) stays in the server log.
 */
export function describeError(error: unknown): string {
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
  /** The replay's run context, when the caller read it (a worker, with its claim): not read again. */
  context?: RunContext;
  /** With `context`, the base session's events, when the caller read them too (a short session's, with a claim). */
  base?: SessionEvent[];
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
      await keep({ type: "live_tool_result", ...resultEntryFields(id, now(), call, thrown(error)) }, call.tool);
      throw error;
    }
    await keep({ type: "live_tool_result", ...resultEntryFields(id, now(), call, answer) }, call.tool);
    return answer;
  };
  const simulator: ToolSimulator = async (call) => {
    await live.beforeCall(`the simulated "${call.tool}" call`);
    let answer: ToolAnswer & { durationMs?: number };
    try {
      answer = await executors.simulator(call);
    } catch (error) {
      const entry = resultEntryFields(`sim:${key(call)}`, now(), call, thrown(error));
      await store({ type: "simulated_tool_result", ...entry, model: call.model });
      throw error;
    }
    await store({
      type: "simulated_tool_result",
      ...resultEntryFields(`sim:${key(call)}`, now(), call, answer),
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
export async function executeReplay(prisma: Db, replayId: string, hooks: RunHooks = {}): Promise<ReplayResult | null> {
  const row = hooks.context ?? (await replayRunContext(prisma, replayId));
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
    const base = (hooks.context && hooks.base) || (await sessionEventsForRun(prisma, row.sessionId, row.seqs));
    if (base.length === 0 && !(await sessionContext(prisma, row.sessionId)))
      throw new Error(`The base session of replay "${replayId}" no longer exists.`);
    // A fresh replay's log is empty (the run context says so): it is not read.
    const log: BranchLogEntry[] = row.hasLog ? await loadBranchLog(prisma, replayId) : [];
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
        tools: row.tools,
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
      // The rows are built before the transaction (the inputs' compaction is the run's work, not the database's);
      // the transaction writes them a window per statement, so it holds the connection for the inserts alone.
      const rows = stepRows(replayId, done.steps);
      // Judged before the run is stored and saved with it: whoever sees it ended sees its verdicts (an
      // investigation that took over from a dead worker counted a probe's trials between the two, as failing).
      const verdicts = row.hasChecks ? await judgeRun(prisma, replayId, done) : null;
      await pause();
      // On the driver's own transaction: its statements are raw, and on the embedded database Prisma's interactive
      // transaction costs about as much CPU per statement as the statement itself.
      await rawTransaction(prisma, async (tx) => {
        // Fenced by the lease (the result's update is the first write and takes the row's lock).
        const stored = await saveRunResult(tx, replayId, done, new Date(), {
          ...(owner !== undefined ? { owner } : {}),
          fresh: hooks.fresh ?? false,
          progress: hooks.lastProgress?.() ?? null,
          rows,
          comparisonInputs: true,
        });
        if (!stored) throw new LeaseLost(replayId);
        await appendLogEntries(tx, replayId, done.newLogEntries, row.createdBy);
        if (verdicts) await saveVerdicts(tx, replayId, verdicts);
        // With its steps: the comparison pages and the API read a window of it at a time.
        await storeComparisonInRun(tx, replayId, stored.comparisonInputs);
      });
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
