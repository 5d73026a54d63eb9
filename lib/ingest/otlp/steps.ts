import type { EventError, EventStatus, Message, ModelCallInput, ToolCallRequest, Usage } from "@/lib/replay";

// The steps read off spans, before they are a session's events (assemble.ts).

export type StepTiming = { traceId: string; key: string; startNs: bigint; endNs: bigint | null };

export type ModelStep = StepTiming & {
  kind: "model_call";
  name: string;
  input: ModelCallInput;
  output: Message | null;
  usage: Usage | null;
  error: EventError | null;
  status: EventStatus;
  /** The agent that made the call, when the source says (GenAI `gen_ai.agent.name`, on the span or the agent span above it). */
  agent?: string;
  /** That agent's `gen_ai.agent.id` and `gen_ai.agent.description`, kept beside its name (never in it). */
  agentId?: string;
  agentDescription?: string;
  /**
   * The source traces every tool call and handoff of this call itself (the Agents SDK's function and handoff
   * spans): no tool step is read from the conversation for what it asked.
   */
  toolsTraced?: true;
};

export type ToolStep = StepTiming & {
  kind: "tool_call";
  name: string;
  /** The call id the model gave, when the span carries it. */
  callId: string | null;
  args: unknown;
  argsUnparsed?: true;
  output: unknown;
  error: EventError | null;
  status: EventStatus;
  /** Set by a source that ties calls itself (the Agents SDK, by order); `undefined` = find it by call id. */
  parent?: { modelKey: string | null; request: ToolCallRequest | null };
  /** See ModelStep.agent. */
  agent?: string;
  agentId?: string;
  agentDescription?: string;
  /** What a step that is not a plain tool call is (`retrieval`, `search_memory`, `resources/read`…). */
  operation?: string;
  /** The source named an operation Branchpoint does not know: kept as a step, as it came. */
  unrecognized?: true;
  /** No span showed the call: read from the conversation (conversation-tools.ts). */
  fromConversation?: true;
};

export type FinalStep = { kind: "final_output"; traceId: string; key: string; atNs: bigint; output: unknown };

export type Step = ModelStep | ToolStep | FinalStep;
