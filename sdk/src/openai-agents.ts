/**
 * OpenAI Agents SDK (`@openai/agents`) function tools that ask the replay first. Each wrapped tool's
 * `invoke` goes to the tool-call endpoint with the parsed arguments and the model's call id; the
 * answer is the recorded (or fixture, static…) output, a passthrough that runs the original `invoke`
 * and reports its result, or a refusal (a ReplayToolError is thrown and the run fails). Tools that are
 * not function tools (hosted tools, computer use) are left as they are. Outside a replay the tools are
 * returned unchanged.
 *
 * The SDK is not imported: a function tool is anything with `type: "function"`, a `name` and
 * `invoke(runContext, input: string, details?)`, the shape of `tool()` in @openai/agents 0.x.
 */
import { replayClient, type WrapOptions } from "./ai-sdk.js";

/** The part of an Agents SDK function tool the wrapper uses. */
export interface AgentsFunctionToolLike {
  type: "function";
  name: string;
  invoke: (runContext: never, input: string, details?: never) => Promise<unknown>;
}

interface InvokeDetails {
  toolCall?: { callId?: string };
  signal?: AbortSignal;
}

function parseArgs(input: string): unknown {
  try {
    return input.trim() === "" ? {} : (JSON.parse(input) as unknown);
  } catch {
    return input;
  }
}

/** One function tool wrapped (any other tool is returned as it is). */
export function withBranchpointTool<T>(tool: T, options: WrapOptions = {}): T {
  const client = replayClient(options);
  const t = tool as unknown as Partial<AgentsFunctionToolLike>;
  if (!client || t.type !== "function" || typeof t.invoke !== "function" || typeof t.name !== "string") return tool;
  const original = t.invoke as (runContext: unknown, input: string, details?: unknown) => Promise<unknown>;
  const name = t.name;
  const invoke = (runContext: unknown, input: string, details?: InvokeDetails) =>
    client.callTool(name, parseArgs(input), {
      callId: details?.toolCall?.callId,
      signal: details?.signal,
      run: () => original.call(tool, runContext, input, details),
    });
  return { ...tool, invoke };
}

/** Every function tool of the list wrapped: `new Agent({ tools: withBranchpointAgentTools([a, b]) })`. */
export function withBranchpointAgentTools<T extends readonly unknown[]>(tools: T, options: WrapOptions = {}): T {
  return tools.map((tool) => withBranchpointTool(tool, options)) as unknown as T;
}
