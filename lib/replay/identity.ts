import { cacheKey } from "./canonical";
import type { SessionEvent } from "./events";

/** The arguments of a tool_call event, wherever its input keeps them. */
export function toolCallArgs(event: Pick<SessionEvent, "input">): unknown {
  const input = event.input;
  if (input !== null && typeof input === "object" && !Array.isArray(input) && "args" in input) {
    return input.args;
  }
  return undefined;
}

/**
 * Derives `cacheKey` and `occurrence` for every tool call of a session, in seq
 * order. Occurrences count the calls with the same key that finished
 * (completed or failed); a recording that never finished gets none, because a
 * baseline lookup skips it.
 */
export function assignCallIdentity<E extends Omit<SessionEvent, "cacheKey" | "occurrence">>(
  events: readonly E[],
): (E & Pick<SessionEvent, "cacheKey" | "occurrence">)[] {
  const identify = callIdentity();
  return events.map((event) => identify(event));
}

/** assignCallIdentity one event at a time, in seq order (an import read as a stream). */
export function callIdentity(): <E extends Omit<SessionEvent, "cacheKey" | "occurrence">>(
  event: E,
) => E & Pick<SessionEvent, "cacheKey" | "occurrence"> {
  const seen = new Map<string, number>();
  return (event) => {
    if (event.kind !== "tool_call") return { ...event, cacheKey: null, occurrence: null };
    const key = cacheKey(event.name, toolCallArgs(event));
    if (key === null || event.status === "incomplete") {
      return { ...event, cacheKey: key, occurrence: null };
    }
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { ...event, cacheKey: key, occurrence };
  };
}
