/**
 * A tool call the branch makes, the answer a tool gives, the executors that
 * give it, and what an executor may throw to stop short of an answer.
 */
import type { EventError } from "./events";

/** A tool call the branch makes. */
export interface ToolCall {
  tool: string;
  callId: string;
  args: unknown;
  cacheKey: string | null;
  /** Branch step index the call would occupy. */
  step: number;
}

/** What a tool returns: a result, or an error the agent sees. */
export type ToolAnswer = { output: unknown; error?: undefined } | { output?: undefined; error: EventError };

export type ToolExecutor = (call: ToolCall) => Promise<ToolAnswer & { durationMs?: number }>;

/**
 * Thrown by a tool executor that will not make a call because an earlier run
 * of this branch started it and stopped before its answer was kept: making it
 * again could repeat a side effect. The branch pauses for the answer (a
 * fixture for that call), which a person takes from the tool's own records.
 */
export class LiveCallInDoubt extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LiveCallInDoubt";
  }
}

/**
 * Thrown by an executor when the run must end now without a result (its
 * worker no longer holds the replay): the engine passes it on to the caller
 * instead of showing it to the agent as a tool error.
 */
export class RunInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunInterrupted";
  }
}

/**
 * Thrown by an executor that found, just before its call would go out, that
 * the replay was cancelled: the call is not made, and the engine ends the
 * branch `cancelled` with the steps before it kept (as a cancel seen at a step
 * boundary does). `what` names the call, e.g. `the "refund" call`.
 */
export class CancelledBeforeCall extends Error {
  constructor(readonly what: string) {
    super(`The replay was cancelled before ${what} went out.`);
    this.name = "CancelledBeforeCall";
  }
}
export type ToolSimulator = (
  call: ToolCall & { model: string; instructions: string | undefined },
) => Promise<ToolAnswer & { durationMs?: number }>;
