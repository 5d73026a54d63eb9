/**
 * Vercel AI SDK tools that ask the replay first. `withBranchpointTools(tools)` wraps every tool that
 * has an `execute`: under a replay each call goes to the tool-call endpoint, which answers with the
 * recorded (or fixture, static…) output, tells it to run the original `execute` (passthrough; the
 * result is reported back), or refuses the call (a ReplayToolError is thrown). Outside a replay
 * (no BRANCHPOINT_REPLAY_URL / BRANCHPOINT_REPLAY_TOKEN and no client given) the tools are returned
 * as they are, so the same agent code runs in production and under a replay.
 *
 * The AI SDK is not imported: tools are taken structurally, so any version whose tools have
 * `execute(input, { toolCallId, abortSignal })` works.
 */
import { AgentReplayClient } from "./client.js";

/** The part of an AI SDK tool the wrapper uses. */
export interface AiSdkToolLike {
  execute?: (input: never, options: never) => unknown;
}

interface ExecuteOptions {
  toolCallId?: string;
  abortSignal?: AbortSignal;
}

export interface WrapOptions {
  /** The replay's client (default: one from BRANCHPOINT_REPLAY_URL and BRANCHPOINT_REPLAY_TOKEN). */
  client?: AgentReplayClient;
}

/** The client to use, or null when the agent does not run under a replay. */
export function replayClient(options: WrapOptions): AgentReplayClient | null {
  if (options.client) return options.client;
  return AgentReplayClient.inEnvironment() ? new AgentReplayClient() : null;
}

/** Awaits a tool's result; a streaming tool (an async iterable) gives its last value, as the AI SDK does. */
async function settle(result: unknown): Promise<unknown> {
  const value = await result;
  if (value && typeof value === "object" && Symbol.asyncIterator in value) {
    let last: unknown;
    for await (const part of value as AsyncIterable<unknown>) last = part;
    return last;
  }
  return value;
}

export function withBranchpointTools<T extends Record<string, AiSdkToolLike>>(tools: T, options: WrapOptions = {}): T {
  const client = replayClient(options);
  if (!client) return tools;
  const wrapped: Record<string, AiSdkToolLike> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const original = tool.execute;
    if (!original) {
      wrapped[name] = tool;
      continue;
    }
    const execute = (input: unknown, callOptions: ExecuteOptions = {}) =>
      client.callTool(name, input, {
        callId: callOptions.toolCallId,
        signal: callOptions.abortSignal,
        run: () => settle((original as (i: unknown, o: unknown) => unknown).call(tool, input, callOptions)),
      });
    wrapped[name] = { ...tool, execute };
  }
  return wrapped as T;
}
