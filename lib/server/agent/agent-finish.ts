/**
 * The end of an agent-driven branch: what a server-driven replay stores at its end (the trailing recorded
 * events, comparability against the base, the evidence with the driver named, the outcome checks), so the
 * comparison page reads it as any other branch.
 */
import { z } from "zod";
import {
  comparabilityOf,
  deepEqual,
  policyHash,
  stepsEvidence,
  strengthOf,
  type Evidence,
  type ForkPoint,
  type LiveCallRecord,
  type Message,
  type ReplayResult,
  type ReplayStatus,
  type ReplayStep,
} from "@/lib/replay";
import type { Db } from "@/lib/db";
import { finishAgentReplayRow } from "@/lib/db/agent-replays";
import { saveVerdicts } from "@/lib/db/checks";
import { withTransaction } from "@/lib/db/transactions";
import { AppError } from "@/lib/errors";
import { firstDifference } from "@/lib/agent-wire/compare";
import { runFailure } from "@/lib/run-failures";
import type { Principal } from "../principal";
import { judgeRun } from "../checks/counterfactual";
import { refuseNul } from "../replays/replay-inputs";
import { agentOnly } from "./agent-access";
import { branchStop, forgetAgentRun, storeSteps, underReplay, type AgentRun } from "./agent-run";

export const FinishBody = z
  .strictObject({
    finalOutput: z.unknown().optional(),
    error: z
      .strictObject({
        type: z.string().trim().min(1).max(200).optional(),
        message: z.string().trim().min(1).max(20_000),
      })
      .optional(),
  })
  .superRefine(refuseNul)
  .refine((v) => !(v.finalOutput !== undefined && v.error !== undefined), {
    message: 'Send "finalOutput" when the agent finished, or "error" when it failed, not both.',
    path: ["error"],
  });
export type FinishBody = z.infer<typeof FinishBody>;

export interface AgentEnd {
  status: ReplayStatus;
  /** For a branch that did not complete: why, as stored on the replay. */
  code?: string;
  message?: string;
  /** The branch step it stopped at (a refused tool call's). */
  step?: number;
  finalOutput?: unknown;
}

/** The recorded events after the last model step (trailing user turns, final outputs), as the engine's branch ends. */
function tailSteps(run: AgentRun, finalOutput: unknown): ReplayStep[] {
  const base = run.base;
  const last = run.steps.findLast((s) => s.kind === "model_call") ?? null;
  const lastModelSeq = base.modelSteps[base.modelSteps.length - 1]?.seq ?? -1;
  const trailing = base.userMessagesBefore[base.modelSteps.length] ?? [];
  const tail = [...trailing, ...base.finalOutputs].filter((e) => e.seq > lastModelSeq).sort((a, b) => a.seq - b.seq);
  const events = tail.length > 0 ? tail : base.finalOutputs;
  // Only once the branch made the recording's last model step: a branch that went elsewhere ends its own way.
  if (run.modelCalls < base.modelSteps.length && run.forkedAt === null) return [];
  const steps: ReplayStep[] = [];
  for (const event of events) {
    const seq = run.steps.length + steps.length;
    const output =
      finalOutput !== undefined ? finalOutput : last ? ((last.output as Message | null)?.content ?? null) : null;
    const equal = event.kind === "user_message" || (last?.equalsBase === true && deepEqual(output, event.output));
    steps.push({
      ...event,
      seq,
      parentSeq: null,
      ...(event.kind === "user_message" ? {} : { output, error: null, status: "completed" as const }),
      source: event.kind === "user_message" || equal ? "recorded" : (last?.source ?? "recorded"),
      baseSeq: event.seq,
      miss: null,
      equalsBase: equal,
      edits: [],
    });
  }
  return steps;
}

function liveCallsOf(steps: readonly ReplayStep[]): LiveCallRecord[] {
  return steps
    .filter((s) => s.logEntryId && (s.source === "live" || s.source === "llm"))
    .map((s) => ({
      step: s.seq,
      kind: s.kind === "model_call" ? "model" : s.source === "llm" ? "simulator" : "tool",
      name: s.name,
      callId: (s.input as { callId?: string } | null)?.callId ?? null,
      fromLog: false,
      logEntryId: s.logEntryId!,
      approval: null,
    }));
}

/**
 * Where the model first ran live (a live model policy after the first difference), as a server-driven fork is
 * shown: its branch step, model step, the recorded call it stood in for and why (the first differing path, or
 * past the end of the recording).
 */
function forkOf(run: AgentRun): ForkPoint | null {
  const models = run.steps.filter((s) => s.kind === "model_call");
  const modelStep = models.findIndex((s) => s.source === "live");
  if (modelStep < 0) return null;
  const step = models[modelStep]!;
  const recorded = step.baseSeq !== null ? run.recordedInputs.get(step.baseSeq) : undefined;
  return {
    seq: step.seq,
    modelStep,
    baseSeq: step.baseSeq,
    reasons:
      recorded !== undefined ? [`input_differs_at:${firstDifference(step.input, recorded)}`] : ["past_the_record"],
  };
}

/** Whether a live model step ran on a model other than the recorded one it stood in for (`compatible-live`). */
function drifting(run: AgentRun): boolean {
  return run.steps.some((s) => {
    if (s.kind !== "model_call" || s.source !== "live" || s.baseSeq === null) return false;
    const recorded = run.base.bySeq.get(s.baseSeq);
    return recorded !== undefined && recorded.name !== s.name;
  });
}

/** Stores the branch's end (under the replay's lock); returns the result a server run would have returned. */
export async function endAgentRun(prisma: Db, run: AgentRun, end: AgentEnd): Promise<ReplayResult> {
  if (end.status === "completed") {
    const tail = tailSteps(run, end.finalOutput);
    if (tail.length > 0) await storeSteps(prisma, run, tail);
  }
  const steps = run.steps;
  const { stepsBySource, fixturesUsed } = stepsEvidence(steps, fixturesOf(run));
  const liveCalls = liveCallsOf(steps);
  const evidence: Evidence & { driver: Record<string, unknown> } = {
    policy: run.policy,
    policyHash: policyHash(run.policy),
    stepsBySource,
    strength: strengthOf(stepsBySource, drifting(run), 0),
    fixturesUsed,
    liveCalls,
    inputDrift: [],
    probes: [],
    edits: [],
    fork: forkOf(run),
    driver: { kind: "agent", ...run.driver },
  };
  const comparability = comparabilityOf(end.status, steps, run.base.events);
  const error =
    end.status === "completed"
      ? null
      : end.code === "agent_error"
        ? runFailure("agent_error", end.message ?? "The agent reported an error.")
        : {
            code: end.code ?? end.status,
            message: end.message ?? "",
            ...(end.step !== undefined ? { step: end.step } : {}),
          };
  const result: ReplayResult = {
    status: end.status,
    fork: evidence.fork ?? null,
    stop: error ? { code: error.code, message: error.message, step: steps.length, miss: null } : null,
    steps,
    pending: null,
    comparability,
    evidence,
    newLogEntries: [],
  };
  // Judged before the end is stored and saved with it, as a server-driven run's: whoever reads the replay
  // ended reads its verdicts too (an LLM judge can take seconds, and the replay must not look finished
  // without them meanwhile).
  const verdicts = await judgeRun(prisma, run.replayId, result);
  try {
    await withTransaction(prisma, async (tx) => {
      const stored = await finishAgentReplayRow(tx, run.replayId, {
        status: end.status,
        comparability,
        evidence,
        error,
      });
      if (!stored) throw new AppError("wrong_state", `Replay ${run.replayId} ended meanwhile; nothing was stored.`);
      if (verdicts) await saveVerdicts(tx, run.replayId, verdicts);
    });
  } finally {
    forgetAgentRun(run.replayId);
  }
  return result;
}

/** The fixtures the branch's steps used (for the evidence's fixtures used). */
function fixturesOf(run: AgentRun) {
  const found = [];
  for (const step of run.steps) {
    if (!step.fixtureId) continue;
    const fixture = run.log.fixtureFor({ step: step.seq, tool: step.name, cacheKey: step.cacheKey });
    if (fixture) found.push(fixture);
  }
  return found;
}

/**
 * `POST {finishUrl}`: the agent is done (`finalOutput`) or failed (`error`). A branch a refused tool call
 * stopped ends failed with that stop (its code, words and step), however the agent ends: the adapter raised
 * the refusal as the run's error, and an agent that caught it and answered anyway still ran past a stop.
 */
export async function finishAgentReplay(
  principal: Principal,
  replayId: string,
  body: FinishBody,
  prisma: Db,
): Promise<{ status: string; comparability: string; stepCount: number }> {
  agentOnly(principal, replayId);
  return underReplay(prisma, replayId, async (run) => {
    const stop = branchStop(run);
    const result = stop
      ? await endAgentRun(prisma, run, { status: "failed", ...stop })
      : body.error
        ? await endAgentRun(prisma, run, {
            status: "failed",
            code: "agent_error",
            message: `The agent reported ${body.error.type ? `${body.error.type}: ` : "an error: "}${body.error.message}`,
          })
        : await endAgentRun(prisma, run, {
            status: "completed",
            ...(body.finalOutput !== undefined ? { finalOutput: body.finalOutput } : {}),
          });
    return { status: result.status, comparability: result.comparability, stepCount: result.steps.length };
  });
}
