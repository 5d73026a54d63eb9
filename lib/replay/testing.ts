import type { Message, SessionEvent } from "./events";
import type { Policy, ToolRule } from "./policy";
import { replay, type ReplayInput, type ReplayResult } from "./replay";
import { buildSession, type CallSpec, type TurnSpec } from "./session-builder";

/** A policy with one default rule (and overrides), recorded model outputs, continue to terminal. */
export function policyWith(
  defaultRule: ToolRule,
  overrides?: Record<string, ToolRule>,
  extra: Partial<Policy> = {},
): Policy {
  return {
    model: "recorded-only",
    drift: "continue_to_terminal",
    tools: { default: defaultRule, ...(overrides ? { overrides } : {}) },
    ...extra,
  };
}

/** A session: one model turn per group of calls, then a final answer. */
export function sessionOf(...groups: CallSpec[][]): SessionEvent[] {
  const turns: TurnSpec[] = [{ user: "help" }];
  groups.forEach((calls, k) => turns.push({ model: `turn ${k}`, calls }));
  turns.push({ model: "done" }, { final: "done" });
  return buildSession(turns);
}

export const toolSteps = (r: ReplayResult) => r.steps.filter((s) => s.kind === "tool_call");

export function run(base: SessionEvent[], policy: Policy, extra: Partial<ReplayInput> = {}): Promise<ReplayResult> {
  return replay({ base, policy, ...extra });
}

/** Replace the model output at `seq` so that it requests `calls` instead. */
export function requestEdit(base: SessionEvent[], seq: number, calls: { id: string; name: string; args: unknown }[]) {
  const original = base.find((e) => e.seq === seq)!.output as Message;
  return { seq, op: "replace_model_output" as const, value: { ...original, toolCalls: calls } };
}

export function modelSeqs(base: SessionEvent[]): number[] {
  return base.filter((e) => e.kind === "model_call").map((e) => e.seq);
}
