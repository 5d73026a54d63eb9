import type { BaseIndex } from "./base-index";
import type { SessionEvent } from "./events";

/** Per cache key: the base's finished recordings, how many baseline history consumed, how many calls the branch made. */
export interface KeyState {
  readonly recordings: readonly SessionEvent[] | undefined;
  used: number;
  branch: number;
}

/** Occurrence state per cache key: one map lookup per call instead of one per counter. */
export class KeyStates {
  /** States of keys the base recorded, by key group (one array slot instead of a map entry per key). */
  private readonly bySlot: (KeyState | undefined)[];
  /** States of keys the base never recorded. */
  private readonly map = new Map<string, KeyState>();
  // Resolving a call and recording its step ask for the same key back to back: remember the last one.
  private lastKey: string | null = null;
  private lastState: KeyState | null = null;
  constructor(private readonly base: BaseIndex) {
    // Filled (not `new Array(n)`): a large holey array would fall back to dictionary elements.
    const bySlot: (KeyState | undefined)[] = [];
    for (let k = 0; k < base.keyGroupCount; k++) bySlot.push(undefined);
    this.bySlot = bySlot;
  }
  /**
   * The state of `key`. `recording`, when given, is a base call believed to
   * have this key: its group is then found without hashing the key into a map
   * (the replay pairs most calls with their recording).
   */
  of(key: string, recording?: SessionEvent | null): KeyState {
    if (key === this.lastKey) return this.lastState!;
    let group = recording ? this.base.keyGroupOf(recording.seq) : undefined;
    if (group === undefined || group.key !== key) group = this.base.keyGroups.get(key);
    let state: KeyState | undefined;
    if (group !== undefined) {
      state = this.bySlot[group.slot];
      if (state === undefined) this.bySlot[group.slot] = state = { recordings: group.recordings, used: 0, branch: 0 };
    } else {
      state = this.map.get(key);
      if (state === undefined) this.map.set(key, (state = { recordings: undefined, used: 0, branch: 0 }));
    }
    this.lastKey = key;
    this.lastState = state;
    return state;
  }
}
