import type { SessionEvent } from "./events";

/**
 * Indices over a base session, built once per replay so that resolving a
 * call is a map lookup (no re-canonicalizing, no scans). The engine trusts
 * each tool call's stored `cacheKey` (derived by `assignCallIdentity` at
 * import) and re-derives occurrences from it.
 */
export interface BaseIndex {
  readonly events: readonly SessionEvent[];
  readonly bySeq: ReadonlyMap<number, SessionEvent>;
  /** Finished (completed or failed) tool calls per cache key, in seq order: the occurrences. */
  readonly finishedByKey: ReadonlyMap<string, readonly SessionEvent[]>;
  /** Recordings that never finished, per cache key (skipped by lookups, named in explanations). */
  readonly incompleteByKey: ReadonlyMap<string, number>;
  readonly toolCallsByName: ReadonlyMap<string, readonly SessionEvent[]>;
  readonly modelSteps: readonly SessionEvent[];
  readonly modelStepIndexBySeq: ReadonlyMap<number, number>;
  /** Tool calls issued by each model call (by parentSeq), in base order. */
  readonly toolCallsByParent: ReadonlyMap<number, readonly SessionEvent[]>;
  /** user_message events before model step i (index i), and after the last one (index modelSteps.length). */
  readonly userMessagesBefore: readonly (readonly SessionEvent[])[];
  readonly finalOutputs: readonly SessionEvent[];
}

export function indexBase(events: readonly SessionEvent[]): BaseIndex {
  const bySeq = new Map<number, SessionEvent>();
  const finishedByKey = new Map<string, SessionEvent[]>();
  const incompleteByKey = new Map<string, number>();
  const toolCallsByName = new Map<string, SessionEvent[]>();
  const modelSteps: SessionEvent[] = [];
  const modelStepIndexBySeq = new Map<number, number>();
  const toolCallsByParent = new Map<number, SessionEvent[]>();
  const userMessagesBefore: SessionEvent[][] = [[]];
  const finalOutputs: SessionEvent[] = [];

  const ordered = isSorted(events) ? events : [...events].sort((a, b) => a.seq - b.seq);
  for (const event of ordered) {
    bySeq.set(event.seq, event);
    switch (event.kind) {
      case "model_call":
        modelStepIndexBySeq.set(event.seq, modelSteps.length);
        modelSteps.push(event);
        userMessagesBefore.push([]);
        break;
      case "tool_call": {
        push(toolCallsByName, event.name, event);
        if (event.parentSeq !== null) push(toolCallsByParent, event.parentSeq, event);
        if (event.cacheKey !== null) {
          if (event.status === "incomplete")
            incompleteByKey.set(event.cacheKey, (incompleteByKey.get(event.cacheKey) ?? 0) + 1);
          else push(finishedByKey, event.cacheKey, event);
        }
        break;
      }
      case "user_message":
        userMessagesBefore[userMessagesBefore.length - 1]!.push(event);
        break;
      case "final_output":
        finalOutputs.push(event);
        break;
    }
  }
  return {
    events: ordered,
    bySeq,
    finishedByKey,
    incompleteByKey,
    toolCallsByName,
    modelSteps,
    modelStepIndexBySeq,
    toolCallsByParent,
    userMessagesBefore,
    finalOutputs,
  };
}

function isSorted(events: readonly SessionEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (events[i - 1]!.seq >= events[i]!.seq) return false;
  return true;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
