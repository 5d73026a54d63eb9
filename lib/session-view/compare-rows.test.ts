import { describe, expect, it } from "vitest";
import { compareRuns, type SessionEvent } from "@/lib/replay";
import { toRows } from "@/lib/session-view/compare-pairs-testing";
import { compareSearch, filterRows, nextChange, parseCompareState } from "./compare-rows";

const ev = (e: Partial<SessionEvent>): SessionEvent => ({
  seq: 0,
  kind: "tool_call",
  name: "t",
  input: { callId: "c", args: {} },
  output: null,
  error: null,
  status: "completed",
  startedAt: null,
  durationMs: null,
  usage: null,
  parentSeq: null,
  cacheKey: "k",
  occurrence: 0,
  ...e,
});

describe("comparison rows", () => {
  const base = [
    ev({ seq: 0, kind: "model_call", name: "m", cacheKey: null }),
    ev({ seq: 1, name: "a", cacheKey: "ka", output: 1 }),
    ev({ seq: 2, name: "b", cacheKey: "kb" }),
  ];
  const branch = [
    ev({ seq: 0, kind: "model_call", name: "m", cacheKey: null }),
    ev({ seq: 1, name: "a", cacheKey: "ka", output: 2 }),
    ev({ seq: 2, name: "c", cacheKey: "kc" }),
  ];
  const rows = toRows(compareRuns(base, branch).pairs);

  it("keeps one row per pair with its type and both seqs", () => {
    expect(rows.map((r) => [r.type, r.baseSeq, r.branchSeq])).toEqual([
      ["equal", 0, 0],
      ["changed", 1, 1],
      ["removed", 2, null],
      ["inserted", null, 2],
    ]);
    expect(rows[1]!.preview).toContain("⇒ 2");
  });

  it("names each row by its seqs", () => {
    expect(rows.map((r) => r.id)).toEqual(["p0-0", "p1-1", "r2", "i2"]);
  });

  it("filters", () => {
    expect(filterRows(rows, "changes").map((r) => r.type)).toEqual(["changed", "removed", "inserted"]);
    expect(filterRows(rows, "inserted")).toHaveLength(1);
    expect(filterRows(rows, "all")).toBe(rows);
  });

  it("round-trips the view state through the URL and ignores junk", () => {
    expect(parseCompareState({ pair: "p1-1", filter: "changes" })).toEqual({ pair: "p1-1", filter: "changes" });
    expect(compareSearch({ pair: "r2", filter: "removed" })).toBe("?pair=r2&filter=removed");
    expect(compareSearch({ pair: null, filter: "all" })).toBe("");
    expect(parseCompareState({ pair: "'; drop", filter: "nope" })).toEqual({ pair: null, filter: "all" });
  });

  describe("a branch that ended early", () => {
    // Base: model, a, b, final. The branch ran model and a (changed), then paused.
    const early = toRows(
      compareRuns(
        [...base, ev({ seq: 3, kind: "final_output", name: "final", cacheKey: null, output: "done" })],
        branch.slice(0, 2),
        { branchComplete: false },
      ).pairs,
    );

    it("shows the base steps it never reached as unreached rows, with the removed id form", () => {
      expect(early.map((r) => [r.type, r.id])).toEqual([
        ["equal", "p0-0"],
        ["changed", "p1-1"],
        ["unreached", "r2"],
        ["unreached", "r3"],
      ]);
    });

    it("counts them as no change", () => {
      expect(filterRows(early, "changes").map((r) => r.id)).toEqual(["p1-1"]);
      expect(filterRows(early, "unreached").map((r) => r.id)).toEqual(["r2", "r3"]);
      expect(nextChange(early, "p1-1", 1)).toBeNull();
    });
  });

  it("j / k move between changes only, from the selection or from an end", () => {
    const list = [
      { id: "a", type: "equal" as const },
      { id: "b", type: "changed" as const },
      { id: "c", type: "equal" as const },
      { id: "d", type: "inserted" as const },
      { id: "e", type: "unreached" as const },
    ].map((r, index) => ({
      ...r,
      index,
      kind: "tool_call",
      name: "t",
      baseSeq: 0,
      branchSeq: 0,
      source: null,
      preview: "",
    }));
    expect(nextChange(list, null, 1)).toBe("b");
    expect(nextChange(list, "b", 1)).toBe("d");
    expect(nextChange(list, "c", 1)).toBe("d");
    expect(nextChange(list, "d", 1)).toBeNull();
    expect(nextChange(list, "d", -1)).toBe("b");
    expect(nextChange(list, "b", -1)).toBeNull();
    expect(nextChange(list, null, -1)).toBe("d");
  });
});
