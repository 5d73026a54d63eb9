import { describe, expect, it } from "vitest";
import { indexBase } from "./base-index";
import type { SessionEvent } from "./events";
import { KeyStates } from "./key-states";
import { buildSession } from "./session-builder";

// user (0), model (1) → a twice with the same args (2, 3), model (4) → b (5), model (6), final (7).
const events = buildSession([
  { user: "hi" },
  {
    model: "m",
    calls: [
      { name: "a", args: { k: 1 }, result: 1 },
      { name: "a", args: { k: 1 }, result: 2 },
    ],
  },
  { model: "m", calls: [{ name: "b", args: { k: 2 }, result: 3 }] },
  { model: "done" },
  { final: "done" },
]);
/** The same session with seqs that are not 0…n−1 (gaps, as after a filtered import). */
const gapped: SessionEvent[] = events.map((e) => ({
  ...e,
  seq: e.seq * 10 + 5,
  parentSeq: e.parentSeq === null ? null : e.parentSeq * 10 + 5,
}));

describe("indexBase", () => {
  it("indexes calls by parent and recordings by key alike for dense and gapped seqs", () => {
    for (const [session, at] of [
      [events, (seq: number) => seq],
      [gapped, (seq: number) => seq * 10 + 5],
    ] as const) {
      const index = indexBase(session);
      expect(index.toolCallsOf(at(1))!.map((e) => e.seq)).toEqual([at(2), at(3)]);
      expect(index.toolCallsOf(at(4))!.map((e) => e.seq)).toEqual([at(5)]);
      expect(index.toolCallsOf(at(6))).toBeUndefined();
      expect([...index.toolCallsByParent.keys()]).toEqual([at(1), at(4)]);
      const keyA = session[2]!.cacheKey!;
      expect(index.finishedByKey.get(keyA)!.map((e) => e.seq)).toEqual([at(2), at(3)]);
      expect(index.keyGroupOf(at(3))).toBe(index.keyGroups.get(keyA));
      expect(index.keyGroupOf(at(5))!.key).toBe(session[5]!.cacheKey);
      expect(index.keyGroupOf(at(1))).toBeUndefined();
      expect(index.keyGroupCount).toBe(2);
      expect(index.bySeq.get(at(7))!.kind).toBe("final_output");
      expect(index.toolCallsByName.get("a")!.length).toBe(2);
      expect(index.modelStepIndexBySeq.get(at(6))).toBe(2);
    }
  });

  it("indexes events given out of seq order, or with a seq twice, as the sorted session", () => {
    const sorted = indexBase(events);
    for (const session of [[...events].reverse(), [...events.slice(0, 6), events[2]!, ...events.slice(6)]]) {
      const index = indexBase(session);
      expect(index.events.map((e) => e.seq)).toEqual([...session].map((e) => e.seq).sort((a, b) => a - b));
      expect(index.modelSteps.map((e) => e.seq)).toEqual(sorted.modelSteps.map((e) => e.seq));
      expect(index.toolCallsOf(4)!.map((e) => e.seq)).toEqual([5]);
      expect(index.finalOutputs.map((e) => e.seq)).toEqual([7]);
      expect(index.userMessagesBefore.map((list) => list.map((e) => e.seq))).toEqual([[0], [], [], []]);
    }
    expect(sorted.unlinkedCalls).toEqual([]);
    expect(sorted.hasInputPrefix).toBe(false);
    const unlinked = indexBase(events.map((e) => (e.seq === 5 ? { ...e, parentSeq: null } : e)));
    expect(unlinked.unlinkedCalls.map((e) => e.seq)).toEqual([5]);
    expect(unlinked.toolCallsOf(4)).toBeUndefined();
  });

  it("keeps calls whose parent seq lies outside the session", () => {
    const stray = events.map((e) => (e.seq === 5 ? { ...e, parentSeq: 99 } : e));
    const index = indexBase(stray);
    expect(index.toolCallsOf(99)!.map((e) => e.seq)).toEqual([5]);
    expect(index.toolCallsOf(1)!.map((e) => e.seq)).toEqual([2, 3]);
    expect([...index.toolCallsByParent.keys()].sort((a, b) => a - b)).toEqual([1, 99]);
  });
});

describe("KeyStates", () => {
  it("gives one state per key, found by key or through a recording of that key", () => {
    const index = indexBase(events);
    const keys = new KeyStates(index);
    const keyA = events[2]!.cacheKey!;
    const state = keys.of(keyA, events[3]);
    state.used++;
    expect(keys.of(keyA)).toBe(state);
    expect(keys.of(events[5]!.cacheKey!)).not.toBe(state);
    // A wrong hint (a recording of another key) is not trusted.
    expect(keys.of(keyA, events[5])).toBe(state);
    expect(state.recordings!.map((e) => e.seq)).toEqual([2, 3]);
    // A key the base never recorded has a state of its own, with no recordings.
    const fresh = keys.of("f".repeat(64), events[2]);
    expect(fresh.recordings).toBeUndefined();
    expect(keys.of("f".repeat(64))).toBe(fresh);
  });
});
