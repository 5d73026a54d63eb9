import type { EventError, EventStatus, Message, SessionEvent } from "./events";
import { assignCallIdentity } from "./identity";

/**
 * Builds realistic sessions for tests and the bench (not part of the public
 * API): each model turn requests tool calls, whose events follow it (in a
 * given order for parallel calls), and the next model turn sees their results.
 */
export interface CallSpec {
  name: string;
  args: unknown;
  result?: unknown;
  error?: EventError;
  status?: EventStatus;
  id?: string;
}

export type TurnSpec =
  { user: string } | { model: string; calls?: CallSpec[]; order?: number[]; modelName?: string } | { final: string };

export function buildSession(
  turns: readonly TurnSpec[],
  options: { system?: string; windowMessages?: number } = {},
): SessionEvent[] {
  const events: Omit<SessionEvent, "cacheKey" | "occurrence">[] = [];
  const messages: Message[] = [{ role: "system", content: options.system ?? "You are a support agent." }];
  let callCounter = 0;
  const base = (kind: SessionEvent["kind"], name: string) => ({
    seq: events.length,
    kind,
    name,
    error: null,
    status: "completed" as EventStatus,
    startedAt: null,
    durationMs: 10,
    usage: null,
    parentSeq: null,
  });
  for (const turn of turns) {
    if ("user" in turn) {
      const message: Message = { role: "user", content: turn.user };
      events.push({ ...base("user_message", "user"), input: message, output: message });
      messages.push(message);
    } else if ("model" in turn) {
      const calls = turn.calls ?? [];
      const toolCalls = calls.map((c) => ({ id: c.id ?? `call_${callCounter++}`, name: c.name, args: c.args }));
      const output: Message = {
        role: "assistant",
        content: turn.model,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      };
      const window = options.windowMessages;
      const sent =
        window === undefined ? [...messages] : [messages[0]!, ...messages.slice(Math.max(1, messages.length - window))];
      const modelSeq = events.length;
      events.push({
        ...base("model_call", turn.modelName ?? "gpt-test"),
        input: { messages: sent, model: turn.modelName ?? "gpt-test", temperature: 0 },
        output,
        usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.001 },
      });
      messages.push(output);
      const order = turn.order ?? calls.map((_, k) => k);
      for (const k of order) {
        const c = calls[k]!;
        const tc = toolCalls[k]!;
        const status: EventStatus = c.status ?? (c.error ? "failed" : "completed");
        events.push({
          ...base("tool_call", c.name),
          input: { callId: tc.id, args: c.args },
          output: c.error ? null : (c.result ?? null),
          error: c.error ?? null,
          status,
          parentSeq: modelSeq,
        });
      }
      for (let k = 0; k < calls.length; k++) {
        const c = calls[k]!;
        messages.push({
          role: "tool",
          toolCallId: toolCalls[k]!.id,
          name: c.name,
          content: c.error ? { error: c.error } : (c.result ?? null),
        });
      }
    } else {
      events.push({ ...base("final_output", "final"), input: null, output: turn.final });
    }
  }
  return assignCallIdentity(events);
}
