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
  /** Tool calls the importer could not link to a model step (parentSeq null), in seq order. */
  readonly unlinkedCalls: readonly SessionEvent[];
  /** Whether any event's input is in the stored form (`inputPrefix`). */
  readonly hasInputPrefix: boolean;
}

/** The finished recordings of one cache key, and the group's number. */
export interface KeyGroup {
  readonly slot: number;
  readonly key: string;
  readonly recordings: readonly SessionEvent[];
}

export function indexBase(events: readonly SessionEvent[]): BaseIndex {
  // One pass over the events, which also finds whether they are in seq order (the usual case).
  const index = new IndexedBase(events);
  return index.sorted
    ? index
    : new IndexedBase(
        [...events].sort((a, b) => a.seq - b.seq),
        false,
      );
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
  /** Most model steps have no user message before them: they share one empty, frozen list. */
  readonly userMessagesBefore: (readonly SessionEvent[])[] = [NO_EVENTS];
  readonly finalOutputs: SessionEvent[] = [];
  private lazyByKey: Map<string, readonly SessionEvent[]> | null = null;
  private lazyBySeq: Map<number, SessionEvent> | null = null;
  private lazyByName: Map<string, SessionEvent[]> | null = null;
  private lazyModelStepIndex: Map<number, number> | null = null;

  readonly unlinkedCalls: SessionEvent[] = [];
  hasInputPrefix = false;
  /** False when the events were not in strictly increasing seq order and the order was checked (then nothing else was indexed). */
  readonly sorted: boolean = true;

  /** `checkOrder`: stop at the first event out of strictly increasing seq order (then `sorted` is false). */
  constructor(
    readonly events: readonly SessionEvent[],
    checkOrder = true,
  ) {
    const n = events.length;
    // Dense seqs (0…n−1, once sorted): per-seq tables are arrays of exactly n slots, filled, so no
    // array grows (and leaves garbage) and none falls back to dictionary elements.
    const dense = n === 0 || (events[0]!.seq >= 0 && events[n - 1]!.seq === n - 1);
    const groupBySeq: (KeyGroup | undefined)[] | Map<number, KeyGroup> = dense ? slots(n) : new Map();
    this.groupBySeq = groupBySeq;
    this.callsByParent = dense ? slots(n) : new Map();
    let previousSeq = -Infinity;
    for (let i = 0; i < n; i++) {
      const event = events[i]!;
      if (checkOrder && event.seq <= previousSeq) {
        this.sorted = false;
        return;
      }
      previousSeq = event.seq;
      if (event.inputPrefix) this.hasInputPrefix = true;
      switch (event.kind) {
        case "model_call":
          this.modelSteps.push(event);
          this.userMessagesBefore.push(NO_EVENTS);
          break;
        case "tool_call": {
          const parent = event.parentSeq;
          if (parent !== null) {
            let byParent = this.callsByParent;
            if (Array.isArray(byParent) && parent >= 0 && parent < n) {
              const list = byParent[parent];
              if (list) list.push(event);
              else byParent[parent] = [event];
            } else {
              // A parent seq outside 0…n−1: keep them in a map from here on.
              if (Array.isArray(byParent)) this.callsByParent = byParent = toMap(byParent);
              push(byParent, parent, event);
            }
          } else this.unlinkedCalls.push(event);
          const key = event.cacheKey;
          if (key !== null) {
            if (event.status === "incomplete") this.incompleteByKey.set(key, (this.incompleteByKey.get(key) ?? 0) + 1);
            else {
              let group = this.keyGroups.get(key);
              if (group) group.recordings.push(event);
              else this.keyGroups.set(key, (group = { slot: this.keyGroups.size, key, recordings: [event] }));
              if (Array.isArray(groupBySeq)) groupBySeq[event.seq] = group;
              else groupBySeq.set(event.seq, group);
            }
          }
          break;
        }
        case "user_message": {
          const before = this.userMessagesBefore;
          const last = before[before.length - 1]!;
          if (last === NO_EVENTS) before[before.length - 1] = [event];
          else (last as SessionEvent[]).push(event);
          break;
        }
        case "final_output":
          this.finalOutputs.push(event);
          break;
      }
    }
    // A list that grew by push keeps room for 16 more: the index lives as long as the replay, so each
    // list is cut to its length (the grown one is garbage at once).
    const byParent = this.callsByParent;
    if (Array.isArray(byParent)) {
      for (let k = 0; k < byParent.length; k++) {
        const list = byParent[k];
        if (list !== undefined && list.length > 1) byParent[k] = list.slice();
      }
    } else for (const [parent, list] of byParent) if (list.length > 1) byParent.set(parent, list.slice());
    for (const group of this.keyGroups.values())
      if (group.recordings.length > 1) group.recordings = group.recordings.slice();
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

const NO_EVENTS: readonly SessionEvent[] = Object.freeze([]);

/** n slots, each undefined: an array that never grows (filled, so its elements stay fast). */
function slots<T>(n: number): (T | undefined)[] {
  return new Array<T | undefined>(n).fill(undefined);
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
