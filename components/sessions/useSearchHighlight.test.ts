import { describe, expect, it } from "vitest";
import { matchOffsets } from "./useSearchHighlight";

describe("matchOffsets", () => {
  it("finds every occurrence, case-insensitively, without overlapping", () => {
    expect(matchOffsets("Order 4821: ORDER shipped; order", "order")).toEqual([
      [0, 5],
      [12, 17],
      [27, 32],
    ]);
    expect(matchOffsets("aaaa", "aa")).toEqual([
      [0, 2],
      [2, 4],
    ]);
  });
  it("an empty or blank search paints nothing", () => {
    expect(matchOffsets("anything", "")).toEqual([]);
    expect(matchOffsets("anything", "  ")).toEqual([]);
    expect(matchOffsets("anything", "missing")).toEqual([]);
  });
});
