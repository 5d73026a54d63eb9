import type { Message, ToolCallRequest } from "@/lib/replay";
import type { ModelStep, ToolStep } from "./steps";

// ---------------------------------------------------------------------------
// Tool calls read from the conversation. An instrumentation of a model client
// (OpenTelemetry's and OpenInference's of the `openai` client) traces the model
// calls only: the app runs the tools itself, with no span. Each tool call then
// shows in the conversation twice: the assistant message that asked for it, and
// the tool message the app answered with, both in a later model call's input.
// Every answered call no tool step names becomes a tool step of its own, marked
// `fromConversation`, tied to the model call that asked: the one whose output
// requested its id, else (an output the instrumentation garbled, as
// OpenInference's does for parallel calls in a stream) the one whose input the
// asking message came right after.
// ---------------------------------------------------------------------------

export type ConversationToolStep = ToolStep & { fromConversation: true };

/** A tool message's content as a value: JSON objects and arrays parsed, anything else as it came. */
function contentValue(content: unknown): unknown {
  if (typeof content !== "string") return content;
  const text = content.trim();
  if (!text.startsWith("{") && !text.startsWith("[")) return content;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return content;
  }
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

type Answered = { request: ToolCallRequest; asked: number; answer: Message; input: ModelStep };

/** The answered calls of one model call's input: each with the request that asked, and where that message was. */
function answeredIn(model: ModelStep): Answered[] {
  const messages = model.input.messages;
  const out: Answered[] = [];
  messages.forEach((answer, index) => {
    if (answer.role !== "tool" || !answer.toolCallId) return;
    for (let asked = index - 1; asked >= 0; asked--) {
      const request = messages[asked]!.toolCalls?.find((r) => r.id === answer.toolCallId);
      if (messages[asked]!.role === "assistant" && request) {
        out.push({ request, asked, answer, input: model });
        return;
      }
    }
  });
  return out;
}

/**
 * Tool steps for the calls `models` asked for and later inputs answered, whose ids are not `named` (by a tool
 * step, or taken by one). `models` are in time order. Pure: the same steps give the same result.
 */
export function toolsFromConversation(models: readonly ModelStep[], named: ReadonlySet<string>): ToolStep[] {
  const found = new Map<string, Answered>();
  for (const model of models)
    for (const answered of answeredIn(model)) {
      const id = answered.request.id;
      if (!named.has(id) && !found.has(`${model.traceId}\u0000${id}`))
        found.set(`${model.traceId}\u0000${id}`, answered);
    }
  const steps: ConversationToolStep[] = [];
  for (const { request, asked, answer, input } of found.values()) {
    const earlier = models.filter((m) => m.traceId === input.traceId && m.startNs <= input.startNs && m !== input);
    const byId = earlier.filter((m) => m.output?.toolCalls?.some((r) => r.id === request.id)).at(-1);
    const asker = byId ?? earlier.filter((m) => m.input.messages.length === asked).at(-1);
    // A call no traced model call asked for came before the trace (history the app sent): no step of it. A source
    // that traces its tools itself left this one out on purpose (the Agents SDK's handoffs are not tool calls).
    if (!asker || asker.toolsTraced) continue;
    const own = byId?.output?.toolCalls?.find((r) => r.id === request.id) ?? null;
    const position = own
      ? asker.output!.toolCalls!.indexOf(own)
      : input.input.messages[asked]!.toolCalls!.indexOf(request);
    steps.push({
      kind: "tool_call",
      traceId: input.traceId,
      key: `${asker.key}#conversation:${String(position).padStart(4, "0")}:${request.id}`,
      // From the asking call's end (an instrumentation may end its span after the app went on) to the answering one's start.
      startNs: min(asker.endNs ?? asker.startNs, input.startNs),
      endNs: input.startNs,
      name: request.name,
      callId: request.id,
      args: request.args,
      ...(request.argsUnparsed ? { argsUnparsed: true as const } : {}),
      output: contentValue(answer.content),
      error: null,
      status: "completed",
      parent: { modelKey: asker.key, request: own },
      ...(asker.agent !== undefined ? { agent: asker.agent } : {}),
      fromConversation: true,
    });
  }
  return steps;
}

const joined = (calls: readonly ToolCallRequest[], field: "id" | "name") => calls.map((c) => c[field]).join("");

/**
 * Model calls whose requested tool calls came garbled, with the assistant message the app sent on instead, marked
 * `outputFromConversation`. OpenInference (4.2.7) records a streamed reply's parallel calls as one, their ids,
 * names and argument texts run together; the next call's input holds the reply as the app read it. Taken only when
 * it is that reply: at the place the garbled call's input ends, with the same ids and names in the same order.
 */
export function withConversationOutputs(models: readonly ModelStep[]): ModelStep[] {
  return models.map((model) => {
    const calls = model.output?.toolCalls ?? [];
    if (!calls.some((c) => c.argsUnparsed)) return model;
    const at = model.input.messages.length;
    for (const later of models) {
      if (later.traceId !== model.traceId || later.startNs <= model.startNs) continue;
      const sent = later.input.messages[at];
      const sentCalls = sent?.role === "assistant" ? (sent.toolCalls ?? []) : [];
      if (sentCalls.length <= calls.length || sentCalls.some((c) => c.argsUnparsed)) continue;
      if (joined(sentCalls, "id") !== joined(calls, "id") || joined(sentCalls, "name") !== joined(calls, "name"))
        continue;
      return { ...model, output: sent!, input: { ...model.input, outputFromConversation: true } };
    }
    return model;
  });
}
