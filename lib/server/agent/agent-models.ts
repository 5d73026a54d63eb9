/**
 * Model calls of an agent-driven branch. A model call pairs with the next recorded model step of its own
 * thread (its instructions and task: see ThreadIndex), so concurrent agents follow their own parts of the
 * recording. While its input equals the
 * recorded input (the engine's own comparison, on inputs normalized as the importers store them), the
 * recorded output is served; at the first difference the run-level model policy decides: `recorded-only`
 * (and the other record-copying policies) refuse with the step and the first differing path, the live
 * policies ask the admin's model executor from there on. Every call becomes a model step as it is made.
 */
import { deepEqual, recordedStep, type Message, type ReplayStep, type SessionEvent, type Usage } from "@/lib/replay";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { ExecutorError, modelExecutor } from "@/lib/executors/live";
import { failedCall } from "@/lib/executors/endpoint-choices";
import type { WireAnswer, WireRequest } from "@/lib/agent-wire/types";
import { firstDifference, sameInput } from "@/lib/agent-wire/compare";
import type { Principal } from "../principal";
import { LIVE_MODEL_POLICIES } from "../checks/counterfactual";
import { agentOnly } from "./agent-access";
import { branchStop, noteModelStep, stoppedMessage, storeSteps, underReplay, type AgentRun } from "./agent-run";
import { endAgentRun } from "./agent-finish";

/** A model call the branch cannot answer: the provider-format error's status, code and words. */
export class ModelCallRefused extends AppError {
  constructor(
    message: string,
    readonly wireCode: string,
  ) {
    super("wrong_state", message);
  }
}

/** The recorded model step a call pairs with: the next of its own thread of the recording (see ThreadIndex). */
function recordedFor(run: AgentRun, request: WireRequest): SessionEvent | null {
  return run.threads.pairFor(request.input, run.modelCalls, run.pairedModels);
}

interface Served {
  output: Message;
  source: ReplayStep["source"];
  name: string;
  usage: Usage | null;
  durationMs: number | null;
  startedAt: string | null;
}

async function liveAnswer(
  prisma: Db,
  run: AgentRun,
  request: WireRequest,
  recorded: SessionEvent | null,
): Promise<Served> {
  const started = Date.now();
  const input = request.input;
  const answer = await modelExecutor(
    prisma,
    undefined,
    run.row.modelEndpointId,
  )({
    modelStep: run.modelCalls,
    step: run.steps.length,
    messages: input.messages,
    model: run.policy.liveModel ?? input.model,
    temperature: run.policy.temperatureOverride ?? input.temperature,
    tools: input.tools,
    recorded,
  }).catch((error: unknown) => {
    throw liveRefusal(error);
  });
  return {
    output: answer.output,
    source: "live",
    name: answer.model ?? input.model ?? "model",
    usage: answer.usage ?? null,
    durationMs: answer.durationMs ?? Date.now() - started,
    startedAt: new Date(started).toISOString(),
  };
}

/**
 * A model endpoint that could not answer: nothing is stored and the branch stays open, so the agent may ask
 * again. Set-up problems (no endpoint, a host off the allow-list, a missing key) are the admin's to fix (400);
 * an endpoint that failed or timed out is a failed upstream call (502).
 */
function liveRefusal(error: unknown): unknown {
  if (!(error instanceof ExecutorError)) return error;
  if (failedCall(error))
    return new AppError("run_failed", `The model endpoint did not answer this live call: ${error.message}`);
  return new AppError("executor_missing", `This live call cannot run: ${error.message}`);
}

/** What the policy serves for this call, or a refusal (which ends the branch as its drift policy says). */
async function serve(prisma: Db, run: AgentRun, request: WireRequest, recorded: SessionEvent | null): Promise<Served> {
  const n = run.modelCalls;
  const recordedInput = recorded ? run.recordedInputs.get(recorded.seq) : undefined;
  const equal = recorded !== null && run.forkedAt === null && sameInput(request.input, recordedInput);
  if (run.policy.model === "blocked")
    throw new ModelCallRefused(
      `The model policy is "blocked": no model step may run (model step ${n}).`,
      "model_blocked",
    );
  if (equal)
    return {
      output: recorded.output as Message,
      source: "recorded",
      name: recorded.name,
      usage: recorded.usage,
      durationMs: recorded.durationMs,
      startedAt: recorded.startedAt,
    };
  if (LIVE_MODEL_POLICIES.has(run.policy.model)) return liveAnswer(prisma, run, request, recorded);
  if (!recorded)
    throw new ModelCallRefused(
      `The agent made model call ${n}, and the recording has only ${run.base.modelSteps.length}; the model policy "${run.policy.model}" serves recorded outputs only.`,
      "replay_no_recorded_step",
    );
  throw new ModelCallRefused(
    `Model call ${n} differs from the recorded one (base step ${recorded.seq}) at ${firstDifference(request.input, recordedInput)}; the model policy "${run.policy.model}" serves recorded outputs only, so the branch stops here.`,
    "replay_divergence",
  );
}

/** `POST {openaiBaseUrl}/chat/completions` (and the other wire formats): one model call of the branch. */
export async function agentModelCall(
  principal: Principal,
  replayId: string,
  request: WireRequest,
  prisma: Db,
  idPrefix = "chatcmpl-",
): Promise<WireAnswer> {
  agentOnly(principal, replayId);
  return underReplay(prisma, replayId, async (run) => {
    // After a refused tool call no later call runs; the branch keeps its stop for the agent's finish.
    const stop = branchStop(run);
    if (stop) throw new AppError("wrong_state", stoppedMessage(stop));
    const recorded = recordedFor(run, request);
    let served: Served;
    try {
      served = await serve(prisma, run, request, recorded);
    } catch (error) {
      if (error instanceof ModelCallRefused)
        await endAgentRun(prisma, run, {
          status: "stopped_on_divergence",
          code: error.wireCode,
          message: error.message,
        });
      throw error;
    }
    const steps: ReplayStep[] = [];
    // The user turns the recording has before this model step, as the engine's own branch copies them.
    if (recorded && served.source === "recorded")
      for (const event of run.base.userMessagesBefore[run.base.modelSteps.indexOf(recorded)] ?? [])
        steps.push(recordedStep(run.steps.length + steps.length, event));
    const step: ReplayStep = {
      seq: run.steps.length + steps.length,
      kind: "model_call",
      name: served.name,
      input: request.input,
      output: served.output,
      error: null,
      status: "completed",
      startedAt: served.startedAt,
      durationMs: served.durationMs,
      usage: served.usage,
      parentSeq: null,
      cacheKey: null,
      occurrence: null,
      source: served.source,
      baseSeq: recorded?.seq ?? null,
      miss: null,
      equalsBase:
        recorded !== null &&
        served.name === recorded.name &&
        deepEqual(served.output, recorded.output) &&
        sameInput(request.input, run.recordedInputs.get(recorded.seq)),
      edits: [],
    };
    steps.push(step);
    await storeSteps(prisma, run, steps);
    noteModelStep(run, step);
    return {
      message: served.output,
      usage: served.usage,
      model: request.model,
      id: `${idPrefix}${replayId}-${step.seq}`,
      created: Math.floor(Date.now() / 1000),
    };
  });
}

/** `GET {openaiBaseUrl}/models`: the models the recording called (what a client may name). */
export async function agentModels(principal: Principal, replayId: string, prisma: Db): Promise<string[]> {
  agentOnly(principal, replayId);
  return underReplay(prisma, replayId, (run) => {
    const names = new Set<string>();
    for (const step of run.base.modelSteps) {
      const model = (run.recordedInputs.get(step.seq) as { model?: unknown } | undefined)?.model;
      names.add(typeof model === "string" ? model : step.name);
    }
    if (run.policy.liveModel) names.add(run.policy.liveModel);
    return Promise.resolve([...names]);
  });
}
