import { indexBase, type BaseIndex } from "./base-index";
import { validateEdits, type EditIssue, type EditPlan } from "./edits";
import type { Message } from "./events";
import { LogIndex } from "./log";
import { Policy, policyHash } from "./policy";
import { messageOfUserEvent } from "./replay-conversation";
import { comparabilityOf, stepsEvidence, strengthOf } from "./replay-evidence";
import { modelStep, modelStepOf, recordedModelStep, sameModelOutput, stepInputsOut } from "./replay-model";
import { ExecutorFailure, guarded, ReplayRun } from "./replay-run";
import { pairToolCalls, runToolCall } from "./replay-tools";
import { toolResolverFor, type ToolResolver } from "./resolver";
import { CancelledBeforeCall, RunInterrupted } from "./tool-call";

export { comparabilityOf, signatureOf } from "./replay-evidence";

export type {
  ModelRequest,
  ModelExecutor,
  ProviderFixture,
  ReplayInput,
  ReplayStatus,
  Comparability,
  EvidenceStrength,
  ReplayStep,
  PendingCall,
  ReplayStop,
  LiveCallRecord,
  ProbeReport,
  Evidence,
  ForkPoint,
  ReplayResult,
} from "./replay-types";
import type { ReplayInput, ReplayResult } from "./replay-types";

export class ReplayInputError extends Error {
  constructor(
    readonly code:
      | "invalid_policy"
      | "invalid_edits"
      | "model_executor_missing"
      | "history_lookup_missing"
      | "provider_fixtures_missing",
    message: string,
    readonly issues: readonly (EditIssue | { path: (string | number)[]; message: string })[] = [],
  ) {
    super(message);
    this.name = "ReplayInputError";
  }
}

// ---------------------------------------------------------------------------

/** Checks everything that can be checked before a replay starts; throws `ReplayInputError`. */
export function prepareReplay(input: ReplayInput): { policy: Policy; plan: EditPlan; base: BaseIndex } {
  const parsed = Policy.safeParse(input.policy);
  if (!parsed.success) {
    throw new ReplayInputError(
      "invalid_policy",
      "The policy document is invalid.",
      parsed.error.issues.map((i) => ({
        path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
        message: i.message,
      })),
    );
  }
  const policy = parsed.data;
  const edits = validateEdits(input.base, input.edits ?? []);
  if (!edits.ok) {
    throw new ReplayInputError("invalid_edits", edits.issues.map((i) => i.message).join(" "), edits.issues);
  }
  const live =
    policy.model === "pinned-live" ||
    policy.model === "compatible-live" ||
    policy.model === "determinism-probe" ||
    policy.model === "recorded-until-divergence";
  if (live && !input.executors?.model) {
    throw new ReplayInputError(
      "model_executor_missing",
      `Model policy "${policy.model}" runs a live model, and no model executor was given: live model policies fail fast unless an executor is set up.`,
    );
  }
  if (policy.model === "provider-fixture" && !input.providerFixtures) {
    throw new ReplayInputError(
      "provider_fixtures_missing",
      'Model policy "provider-fixture" needs a provider fixture set.',
    );
  }
  const rules = [policy.tools.default, ...Object.values(policy.tools.overrides ?? {})];
  if (!input.historyLookup && rules.some((r) => r.type === "history" && r.scope !== "baseline")) {
    throw new ReplayInputError(
      "history_lookup_missing",
      "A history rule with cohort_version or agent scope needs a history lookup.",
    );
  }
  return { policy, plan: edits.plan, base: indexBase(input.base) };
}

/**
 * Replays a base run as a branch under a policy. Re-walks the
 * agent loop: model step → its tool calls, each resolved by its rule → next
 * model step, until a final output, a stop, a pause or the budget. Pure and
 * deterministic given the same inputs and log; all I/O is in the executors.
 *
 * The loop itself is here; its parts (the run's state, rebuilding a model
 * step's input, model steps, tool calls, evidence) are in `replay-*.ts`.
 */
export async function replay(input: ReplayInput): Promise<ReplayResult> {
  const { policy, plan, base } = prepareReplay(input);
  const run = new ReplayRun({ input, policy, plan, base, log: new LogIndex(input.log ?? []) });
  run.resolver = resolverFor(run);

  try {
    await agentLoop(run);
  } catch (error) {
    // An executor that throws (a model endpoint that timed out, a history lookup that failed) stops
    // the branch as failed; what it obtained so far (live results, approvals) is still returned in
    // newLogEntries, so a retry reads it from the log instead of repeating a live call.
    // An executor that says the run is over (its worker lost the replay) ends it with no result at all.
    if (error instanceof RunInterrupted) throw error;
    run.pending = null;
    if (error instanceof CancelledBeforeCall) {
      // An executor saw the cancel just before its call went out: the call was not made.
      run.haltCancelled(`before ${error.what}`);
    } else if (error instanceof ExecutorFailure) {
      run.halt(
        "failed",
        "executor_error",
        `${error.message} The branch stopped at step ${run.steps.length}; results obtained before it are kept in the branch log.`,
      );
    } else {
      run.halt(
        "failed",
        "engine_error",
        `The replay engine stopped at step ${run.steps.length}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  run.reportProgress(true);
  return resultOf(run);
}

/** The tool resolver of a run: the policy's rules over the base, with the run's log, executors and live budget. */
function resolverFor(run: ReplayRun): ToolResolver {
  const { input } = run;
  const historyLookup = input.historyLookup;
  return toolResolverFor(
    run.policy,
    run.base,
    historyLookup ? (query) => guarded("history lookup", () => historyLookup(query)) : null,
    {
      log: run.log,
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.adapter ? { adapter: input.adapter } : {}),
      ...(input.cohort ? { cohort: input.cohort } : {}),
      run: {
        ...(input.executors?.tool ? { toolExecutor: input.executors.tool } : {}),
        ...(input.executors?.simulator ? { simulator: input.executors.simulator } : {}),
        liveAllowed: () => run.liveAllowed(),
        now: () => run.now(),
      },
    },
  );
}

/** The agent loop: model step after model step until the run finishes or stops. */
async function agentLoop(run: ReplayRun): Promise<void> {
  const base = run.base;
  if (!run.emitRecorded(base.userMessagesBefore[0])) return;
  if (base.modelSteps.length === 0 && run.followsRecord() && run.status === "completed") {
    run.finish({ output: { role: "assistant", content: null }, source: "recorded", equalsBase: true });
    return;
  }
  for (let i = 0; run.status === "completed"; i++) {
    if ((await turn(run, i)) === "end") return;
  }
}

/**
 * One turn of the agent loop: the user messages before model step i, the
 * model step, and the tool calls it requested. "end" when the run finished
 * or stopped; "next" to go on with model step i + 1.
 */
async function turn(run: ReplayRun, i: number): Promise<"next" | "end"> {
  const { base, policy } = run;
  run.reportProgress(false);
  if (run.cancellable && (await run.cancelRequested(`before model step ${i}`))) return "end";
  const recorded = base.modelSteps[i] ?? null;
  if (i > 0 && recorded) {
    for (const event of base.userMessagesBefore[i] ?? []) {
      if (!run.emit(run.recordedStep(event))) return "end";
      run.conversation.sinceLastModelStep.push(messageOfUserEvent(event));
    }
  }
  const budget = run.overBudget();
  if (budget) {
    run.halt("budget_exhausted", "budget", `${budget} before model step ${i}.`);
    return "end";
  }
  if (!recorded && run.copiesRecord) {
    run.halt(
      "failed",
      "no_recorded_model_output",
      `The branch needs model step ${i}, which the base run does not have, and the model policy "${policy.model}" copies recorded outputs only.`,
    );
    return "end";
  }
  const outcome =
    policy.model === "recorded-only" && recorded
      ? recordedModelStep(run, i, recorded)
      : await modelStep(run, i, recorded);
  if (!outcome) return "end";
  run.budgetSteps++;
  const modelSeq = run.steps.length;
  const step = modelStepOf(run, outcome, recorded);
  const outputEquals = sameModelOutput(outcome.output, recorded);
  run.conversation.noteModelOutput(outcome.output, outputEquals);
  if (!run.emit(step)) return "end";
  const list = outcome.list;
  run.conversation.advance(list === "recorded" ? () => run.baseListOf(recorded!) : list, outcome.output);

  const requested = outcome.output.toolCalls ?? [];
  if (requested.length === 0) {
    // A reply without tool calls ends the run, unless the record goes on: a
    // user's next turn (multi-turn sessions), or a base run that continued here too.
    const recordContinues =
      i + 1 < base.modelSteps.length &&
      ((base.userMessagesBefore[i + 1]?.length ?? 0) > 0 ||
        (recorded !== null && ((recorded.output as Message | null)?.toolCalls ?? []).length === 0));
    if (recordContinues) return "next";
    run.finish({ output: outcome.output, source: outcome.source, equalsBase: outputEquals });
    return "end";
  }

  const calls = pairToolCalls(run, requested, recorded);
  let allPaired = true;
  for (const call of calls) {
    if (run.cancellable && (await run.cancelRequested(`before the "${call.request.name}" call`))) return "end";
    const budgetNow = run.overBudget();
    if (budgetNow) {
      run.halt("budget_exhausted", "budget", `${budgetNow} before the "${call.request.name}" call.`);
      return "end";
    }
    const ran = runToolCall(run, call, modelSeq);
    const toolStep = ran instanceof Promise ? await ran : ran;
    if (toolStep === null) return "end";
    run.budgetSteps++;
    run.conversation.noteToolStep(toolStep);
    if (!run.emit(toolStep)) return "end";
    if (call.baseEvent === null) allPaired = false;
  }
  const conversation = run.conversation;
  if (!allPaired) conversation.structureDiverged = true;
  if (conversation.structureDiverged && policy.drift === "stop_on_first_divergence" && run.status === "completed") {
    run.halt(
      "stopped_on_divergence",
      "first_divergence",
      `The branch's tool calls after model step ${i} differ from the base run's.`,
    );
    return "end";
  }
  if (i + 1 >= base.modelSteps.length && run.followsRecord() && !conversation.structureDiverged) {
    // The record ends here with tool results and no further model step; so does the branch.
    if (run.emitRecorded(base.userMessagesBefore[i + 1]) && run.status === "completed")
      run.emitRecorded(base.finalOutputs);
    return "end";
  }
  return "next";
}

/** The result of a finished (or stopped) run: its steps, how it ended, its evidence and new log entries. */
function resultOf(run: ReplayRun): ReplayResult {
  stepInputsOut(run);
  const { stepsBySource, fixturesUsed } = stepsEvidence(run.steps, run.input.log);
  return {
    status: run.status,
    fork: run.fork,
    stop: run.stop,
    steps: run.steps,
    pending: run.pending,
    comparability:
      run.exactSoFar && run.status === "completed" && run.steps.length === run.base.events.length
        ? "exact"
        : comparabilityOf(run.status, run.steps, run.base.events),
    evidence: {
      policy: run.policy,
      policyHash: policyHash(run.policy),
      stepsBySource,
      strength: strengthOf(stepsBySource, run.drifting, run.probes.length),
      fixturesUsed,
      liveCalls: run.liveCalls,
      inputDrift: run.inputDrift,
      probes: run.probes,
      edits: run.plan.all,
      fork: run.fork,
    },
    newLogEntries: run.log.appended,
  };
}
