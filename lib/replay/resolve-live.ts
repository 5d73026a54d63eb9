/**
 * The calls that leave the engine: a tool run live (after its approval, if it
 * needs one) and a tool simulated by a model. A result already in the branch
 * log answers again without running; a new one is appended to the log.
 */
import type { ApprovalEntry } from "./log";
import type { MissExplanation } from "./miss";
import { isReadOnly, type LlmRule, type PassthroughRule } from "./policy";
import type { ResolveEnv, RuleResult, ToolOutcome } from "./resolve-types";
import { CancelledBeforeCall, LiveCallInDoubt, RunInterrupted, type ToolAnswer, type ToolCall } from "./tool-call";

export async function runLive(
  call: ToolCall,
  env: ResolveEnv,
  miss: MissExplanation | null,
  rule: PassthroughRule | null,
): Promise<Extract<ToolOutcome, { type: "answer" | "stop" | "needs_live" | "awaiting_approval" | "pause" }>> {
  const logged = env.log.liveToolResult(call);
  const needsApproval = rule?.approval === "per_call" || !isReadOnly(env.sideEffectOf(call.tool));
  let approval: ApprovalEntry | undefined;
  if (needsApproval) {
    approval = env.log.approval(call);
    if (!approval) {
      return {
        type: "awaiting_approval",
        miss,
        message: `"${call.tool}" would run live and ${rule?.approval === "per_call" ? "its rule asks for approval per call" : `is not declared read-only (${env.sideEffectOf(call.tool)})`}: approve or deny this call.`,
      };
    }
    if (approval.decision === "denied") {
      return {
        type: "answer",
        source: "error_result",
        output: null,
        error: { type: "ApprovalDenied", message: `${approval.by} denied running "${call.tool}" live.` },
        miss,
        approval,
      };
    }
  }
  if (logged) {
    return {
      type: "answer",
      source: "live",
      output: logged.output,
      error: logged.error,
      miss,
      ...(approval ? { approval } : {}),
      live: { fromLog: true, logEntryId: logged.id, durationMs: logged.durationMs },
    };
  }
  if (!env.run) return { type: "needs_live", kind: "tool", miss };
  if (!env.run.toolExecutor) {
    return {
      type: "stop",
      code: "tool_executor_missing",
      message: `"${call.tool}" must run live, and no tool executor was given.`,
      miss,
    };
  }
  // A call an earlier run started and never got the answer of is answered by the fixture a person gave for it.
  const given = env.log.fixtureFor(call);
  if (given && given.step === call.step && given.cacheKey === call.cacheKey)
    return {
      type: "answer",
      source: "fixture",
      output: given.error ? null : (given.output ?? null),
      error: given.error ?? null,
      miss,
      fixture: given,
      ...(approval ? { approval } : {}),
    };
  if (!env.run.liveAllowed()) {
    return { type: "stop", code: "budget_live_calls", message: "maxLiveCalls reached before this live call.", miss };
  }
  let answer: ToolAnswer & { durationMs?: number };
  try {
    answer = await execute(() => env.run!.toolExecutor!(call));
  } catch (error) {
    if (!(error instanceof LiveCallInDoubt)) throw error;
    return {
      type: "pause",
      miss: {
        reason: "live_call_in_doubt",
        message: error.message,
        tool: call.tool,
        cacheKey: call.cacheKey,
        closest: [],
      },
    };
  }
  const id = `live:${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`;
  env.log.append({ type: "live_tool_result", ...resultEntryFields(id, env.run.now(), call, answer) });
  return {
    type: "answer",
    source: "live",
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    miss,
    ...(approval ? { approval } : {}),
    live: { fromLog: false, logEntryId: id, durationMs: answer.durationMs ?? null },
  };
}

export async function runSimulator(rule: LlmRule, call: ToolCall, env: ResolveEnv): Promise<RuleResult> {
  const logged = env.log.simulatedToolResult(call);
  if (logged) {
    return {
      type: "answer",
      source: "llm",
      output: logged.output,
      error: logged.error,
      miss: null,
      live: { fromLog: true, logEntryId: logged.id, durationMs: logged.durationMs },
    };
  }
  if (!env.run) return { type: "needs_live", kind: "simulator", miss: null };
  if (!env.run.simulator) {
    return {
      type: "stop",
      code: "simulator_missing",
      message: `"${call.tool}" is simulated by ${rule.model}, and no simulator executor was given.`,
      miss: null,
    };
  }
  const answer = await execute(() =>
    env.run!.simulator!({ ...call, model: rule.model, instructions: rule.instructions }),
  );
  const id = `sim:${call.step}:${call.tool}:${call.cacheKey ?? "nokey"}`;
  env.log.append({
    type: "simulated_tool_result",
    ...resultEntryFields(id, env.run.now(), call, answer),
    model: rule.model,
  });
  return {
    type: "answer",
    source: "llm",
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    miss: null,
    live: { fromLog: false, logEntryId: id, durationMs: answer.durationMs ?? null },
  };
}

/** What a live and a simulated tool result record in the branch log alike (the engine's and a worker's executors). */
export function resultEntryFields(
  id: string,
  at: string | null,
  call: ToolCall,
  answer: ToolAnswer & { durationMs?: number },
) {
  return {
    id,
    at,
    step: call.step,
    tool: call.tool,
    callId: call.callId,
    cacheKey: call.cacheKey,
    args: call.args,
    output: answer.error ? null : (answer.output ?? null),
    error: answer.error ?? null,
    durationMs: answer.durationMs ?? null,
  };
}

/** Runs an executor; a throw becomes a tool error the agent sees, as a live tool's exception would. */
async function execute(
  run: () => Promise<ToolAnswer & { durationMs?: number }>,
): Promise<ToolAnswer & { durationMs?: number }> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LiveCallInDoubt || error instanceof RunInterrupted || error instanceof CancelledBeforeCall)
      throw error;
    return {
      error: {
        type: "ToolExecutionError",
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}
