import { describe, expect, it } from "vitest";
import { isBaseOnly, type AlignedPair } from "@/lib/replay";
import { toRowOutlines } from "@/lib/session-view/compare-pairs";
import { pairTitle } from "./export";
import { defaultPickerFilter, pairChoice, pinnedIds, type PairChoice } from "./pair-choice";
import { demoSource } from "./testing";

const EDIT = [{ seq: 6, op: "replace_tool_result" as const, value: "refund failed: card expired" }];
const choice = (id: string, index: number): PairChoice => ({ id, index, type: "equal", label: id });

describe("pairChoice", () => {
  it("numbers and words a pair as the report's export titles it, without its type", async () => {
    const { comparison } = await demoSource({ edits: EDIT });
    const choices = toRowOutlines(comparison.pairs).map(pairChoice);
    expect(choices.map((c) => c.index)).toEqual(comparison.pairs.map((_, k) => k));
    expect(choices.map((c) => `${c.type}: ${c.label}`)).toEqual(comparison.pairs.map(pairTitle));
    expect(choices[6]).toEqual({
      id: "p6-6",
      index: 6,
      type: "changed",
      label: "tool_call refund_payment (base #6 ↔ branch #6)",
    });
    // The model call after the edit differs by its input alone: marked so, as the comparison page marks it.
    expect(choices[7]).toEqual({
      id: "p7-7",
      index: 7,
      type: "changed",
      inputOnly: true,
      label: "model_call gpt-4.1-2025-04-14 (base #7 ↔ branch #7)",
    });
    expect(choices.filter((c) => c.inputOnly).map((c) => c.index)).toEqual([7]);
  });

  it("words base-only and branch-only pairs by the one side they have", () => {
    const base = { seq: 4, kind: "tool_call", name: "lookup_order" };
    const branch = { seq: 5, kind: "model_call", name: "gpt" };
    const pairs = [
      { id: "r4", type: "removed", base },
      { id: "r4", type: "unreached", base },
      { id: "i5", type: "inserted", branch },
    ] as unknown as AlignedPair[];
    expect(pairs.every((p) => isBaseOnly(p) === (p.type !== "inserted"))).toBe(true);
    expect(toRowOutlines(pairs).map((r) => pairChoice(r).label)).toEqual([
      "tool_call lookup_order (base #4)",
      "tool_call lookup_order (base #4)",
      "model_call gpt (branch #5)",
    ]);
  });
});

describe("the picker's pins", () => {
  it("opens on the differences when there are any, else on every pair", () => {
    const counts = { all: 9, changes: 2, changed: 2, inserted: 0, removed: 0, unreached: 0 };
    expect(defaultPickerFilter(counts)).toBe("changes");
    expect(defaultPickerFilter({ ...counts, changes: 0, changed: 0 })).toBe("all");
    expect(defaultPickerFilter({ ...counts, all: 0, changes: 0, changed: 0 })).toBe("all");
  });

  it("saves the pins in the comparison's order, the first divergence always among them, each once", () => {
    const fd = choice("p6-6", 6);
    expect(pinnedIds([choice("p20001-20001", 20001), choice("p1-1", 1)], fd)).toEqual(["p1-1", "p6-6", "p20001-20001"]);
    expect(pinnedIds([fd, choice("p1-1", 1)], fd)).toEqual(["p1-1", "p6-6"]);
    expect(pinnedIds([], null)).toEqual([]);
  });
});
