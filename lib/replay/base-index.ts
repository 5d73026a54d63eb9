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
  /** The same recordings per cache key, each group numbered (0…keyGroupCount−1) so per-key state can live in an array. */
  readonly keyGroups: ReadonlyMap<string, KeyGroup>;
  readonly keyGroupCount: number;
  /** The key group a finished tool call of the base belongs to (by its seq). */
  keyGroupOf(seq: number): KeyGroup | undefined;
  /** Recordings that never finished, per cache key (skipped by lookups, named in explanations). */
  readonly incompleteByKey: ReadonlyMap<string, number>;
  readonly toolCallsByName: ReadonlyMap<string, readonly SessionEvent[]>;
  readonly modelSteps: readonly SessionEvent[];
  readonly modelStepIndexBySeq: ReadonlyMap<number, number>;
  /** Tool calls issued by each model call (by parentSeq), in base order. */
  readonly toolCallsByParent: ReadonlyMap<number, readonly SessionEvent[]>;
  /** The same, for one model call's seq (no map lookup on the common path). */
  toolCallsOf(parentSeq: number): readonly SessionEvent[] | undefined;
  /** user_message events before model step i (index i), and after the last one (index modelSteps.length). */
  readonly userMessagesBefore: readonly (readonly SessionEvent[])[];
  readonly finalOutputs: readonly SessionEvent[];
}

/** The finished recordings of one cache key, and the group's number. */
export interface KeyGroup {
  readonly slot: number;
  readonly key: string;
  readonly recordings: readonly SessionEvent[];
}

export function indexBase(events: readonly SessionEvent[]): BaseIndex {
  return new IndexedBase(isSorted(events) ? events : [...events].sort((a, b) => a.seq - b.seq));
}

/**
 * What every replay needs is built in one pass (model steps, calls by
 * parent, recordings by key group); the maps only explanations and realigned
 * steps read (by seq, by tool name, model step by seq, recordings by key) are
 * built on first use, so a replay that never asks pays nothing for them.
 */
class IndexedBase implements BaseIndex {
  readonly keyGroups = new Map<string, { slot: number; key: string; recordings: SessionEvent[] }>();
  /** Key group by seq: an array while seqs are 0…n−1 (the usual case), else a map. */
  private readonly groupBySeq: (KeyGroup | undefined)[] | Map<number, KeyGroup>;
  readonly incompleteByKey = new Map<string, number>();
  readonly modelSteps: SessionEvent[] = [];
  /** Tool calls by parent seq: an array while seqs are 0…n−1, else a map. */
  private callsByParent: (SessionEvent[] | undefined)[] | Map<number, SessionEvent[]>;
  private lazyByParent: Map<number, readonly SessionEvent[]> | null = null;
  readonly userMessagesBefore: SessionEvent[][] = [[]];
  readonly finalOutputs: SessionEvent[] = [];
  private lazyByKey: Map<string, readonly SessionEvent[]> | null = null;
  private lazyBySeq: Map<number, SessionEvent> | null = null;
  private lazyByName: Map<string, SessionEvent[]> | null = null;
  private lazyModelStepIndex: Map<number, number> | null = null;

  constructor(readonly events: readonly SessionEvent[]) {
    const dense = events.length === 0 || (events[0]!.seq >= 0 && events[events.length - 1]!.seq === events.length - 1);
    const groupBySeq: (KeyGroup | undefined)[] | Map<number, KeyGroup> = dense ? [] : new Map();
    this.groupBySeq = groupBySeq;
    this.callsByParent = dense ? [] : new Map();
    for (const event of events) {
      switch (event.kind) {
        case "model_call":
          this.modelSteps.push(event);
          this.userMessagesBefore.push([]);
          break;
        case "tool_call": {
          const parent = event.parentSeq;
          if (parent !== null) {
            let byParent = this.callsByParent;
            if (Array.isArray(byParent) && parent >= 0 && parent < events.length) {
              while (byParent.length <= parent) byParent.push(undefined);
              const list = byParent[parent];
              if (list) list.push(event);
              else byParent[parent] = [event];
            } else {
              // A parent seq outside 0…n−1: keep them in a map from here on.
              if (Array.isArray(byParent)) this.callsByParent = byParent = toMap(byParent);
              push(byParent, parent, event);
            }
          }
          const key = event.cacheKey;
          if (key !== null) {
            if (event.status === "incomplete") this.incompleteByKey.set(key, (this.incompleteByKey.get(key) ?? 0) + 1);
            else {
              let group = this.keyGroups.get(key);
              if (group) group.recordings.push(event);
              else this.keyGroups.set(key, (group = { slot: this.keyGroups.size, key, recordings: [event] }));
              if (Array.isArray(groupBySeq)) {
                while (groupBySeq.length < event.seq) groupBySeq.push(undefined);
                groupBySeq[event.seq] = group;
              } else groupBySeq.set(event.seq, group);
            }
          }
          break;
        }
        case "user_message":
          this.userMessagesBefore[this.userMessagesBefore.length - 1]!.push(event);
          break;
        case "final_output":
          this.finalOutputs.push(event);
          break;
      }
    }
  }

  toolCallsOf(parentSeq: number): readonly SessionEvent[] | undefined {
    const calls = this.callsByParent;
    return Array.isArray(calls) ? calls[parentSeq] : calls.get(parentSeq);
  }

  get toolCallsByParent(): ReadonlyMap<number, readonly SessionEvent[]> {
    if (this.lazyByParent === null) {
      const calls = this.callsByParent;
      this.lazyByParent = Array.isArray(calls) ? toMap(calls) : calls;
    }
    return this.lazyByParent;
  }

  keyGroupOf(seq: number): KeyGroup | undefined {
    const groupBySeq = this.groupBySeq;
    return Array.isArray(groupBySeq) ? groupBySeq[seq] : groupBySeq.get(seq);
  }

  get keyGroupCount(): number {
    return this.keyGroups.size;
  }

  get finishedByKey(): ReadonlyMap<string, readonly SessionEvent[]> {
    if (this.lazyByKey === null) {
      this.lazyByKey = new Map();
      for (const [key, group] of this.keyGroups) this.lazyByKey.set(key, group.recordings);
    }
    return this.lazyByKey;
  }

  get bySeq(): ReadonlyMap<number, SessionEvent> {
    if (this.lazyBySeq === null) {
      this.lazyBySeq = new Map();
      for (const event of this.events) this.lazyBySeq.set(event.seq, event);
    }
    return this.lazyBySeq;
  }

  get toolCallsByName(): ReadonlyMap<string, readonly SessionEvent[]> {
    if (this.lazyByName === null) {
      this.lazyByName = new Map();
      for (const event of this.events) if (event.kind === "tool_call") push(this.lazyByName, event.name, event);
    }
    return this.lazyByName;
  }

  get modelStepIndexBySeq(): ReadonlyMap<number, number> {
    if (this.lazyModelStepIndex === null) {
      this.lazyModelStepIndex = new Map();
      this.modelSteps.forEach((event, i) => this.lazyModelStepIndex!.set(event.seq, i));
    }
    return this.lazyModelStepIndex;
  }
}

function isSorted(events: readonly SessionEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if (events[i - 1]!.seq >= events[i]!.seq) return false;
  return true;
}

function toMap(list: readonly (SessionEvent[] | undefined)[]): Map<number, SessionEvent[]> {
  const map = new Map<number, SessionEvent[]>();
  list.forEach((calls, seq) => {
    if (calls) map.set(seq, calls);
  });
  return map;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
