import { describe, expect, it } from "vitest";
import { compareRuns, type SessionEvent } from "@/lib/replay";
import { compareSearch, filterRows, packRows, parseCompareState, toRows, unpackRows } from "./rows";

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

  it("packs for the browser and unpacks to the same rows, ids included", () => {
    expect(unpackRows(packRows(rows))).toEqual(rows);
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
});
