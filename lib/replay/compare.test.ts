import { describe, expect, it } from "vitest";
import { compareRuns, editDistance } from "./compare";
import type { HistoryRule } from "./policy";
import { buildSession, type TurnSpec } from "./session-builder";
import { modelSeqs, policyWith, requestEdit, run, sessionOf } from "./testing";

const history: HistoryRule = { type: "history", scope: "baseline", on_miss: "error_result" };

describe("DESIGN §5 · comparison", () => {
  const base = sessionOf(
    [{ name: "get_order", args: { id: 1 }, result: { total: 129 } }],
    [{ name: "refund", args: { id: 1, amount: 129 }, result: "ok" }],
  );

  it("an exact replay aligns every step as equal and names no divergence", async () => {
    const r = await run(base, policyWith(history));
    const c = compareRuns(base, r.steps);
    expect(c.pairs.every((p) => p.type === "equal")).toBe(true);
    expect(c.firstDivergence).toBeNull();
    expect(c.metrics.first_divergence_step).toBeNull();
    expect(c.metrics.tool_sequence_distance).toBe(0);
    expect(c.finalOutputDiff?.every((p) => p.type === "equal")).toBe(true);
  });

  it("a changed result is a changed pair with a structural diff, and is the first divergence", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: 2, op: "replace_tool_result", value: { total: 0 } }],
    });
    const c = compareRuns(base, r.steps);
    const changed = c.pairs.filter((p) => p.type === "changed");
    expect(changed[0]).toMatchObject({ base: { seq: 2 }, branch: { seq: 2 } });
    expect(changed[0]!.type === "changed" && changed[0]!.delta).toMatchObject({ output: { total: [129, 0] } });
    expect(c.firstDivergence).toMatchObject({ type: "changed", baseSeq: 2, branchSeq: 2 });
    expect(c.metrics.first_divergence_step).toBe(2);
  });

  it("inserted and removed steps line up (Myers over kind, name, cache key)", async () => {
    const edit = requestEdit(base, modelSeqs(base)[1]!, [{ id: "n", name: "notify", args: { to: "x" } }]);
    const r = await run(base, policyWith(history), { edits: [edit] });
    const c = compareRuns(base, r.steps);
    const types = c.pairs.map((p) => p.type);
    expect(types).toContain("inserted");
    expect(types).toContain("removed");
    expect(c.pairs.find((p) => p.type === "removed")).toMatchObject({ base: { name: "refund" } });
    expect(c.pairs.find((p) => p.type === "inserted")).toMatchObject({ branch: { name: "notify" } });
    expect(c.metrics.toolCallsByTool).toMatchObject({
      refund: { base: 1, branch: 0, delta: -1 },
      notify: { base: 0, branch: 1, delta: 1 },
    });
    expect(c.metrics.tool_sequence_distance).toBe(1);
    expect(c.metrics.errors.delta).toBe(1);
    expect(new Set(c.pairs.map((p) => p.id)).size).toBe(c.pairs.length);
  });

  it("tool_argument_changed is true when a call runs with other arguments", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: 4, op: "replace_tool_args", value: { id: 1, amount: 1 } }],
    });
    expect(compareRuns(base, r.steps).metrics.tool_argument_changed).toBe(true);
    const same = await run(base, policyWith(history));
    expect(compareRuns(base, same.steps).metrics.tool_argument_changed).toBe(false);
  });

  it("fixture_dependency_count counts fixture steps", async () => {
    const r = await run(base, policyWith({ type: "fixture", on_miss: "error_result" }), {
      log: [
        {
          type: "fixture",
          id: "f",
          at: null,
          step: 2,
          tool: "get_order",
          cacheKey: base[2]!.cacheKey,
          output: { total: 1 },
          author: "a",
          note: "",
        },
      ],
    });
    expect(compareRuns(base, r.steps).metrics.fixture_dependency_count).toBe(1);
  });

  it("the final outputs are compared as text", () => {
    const b2 = buildSession([{ model: "x" }, { final: "refund issued: $129.00" }]);
    const b3 = buildSession([{ model: "x" }, { final: "refund denied: $129.00" }]);
    const c = compareRuns(b2, b3);
    expect(c.finalOutputDiff).toEqual([
      { type: "equal", value: "refund " },
      { type: "removed", value: "issued" },
      { type: "added", value: "denied" },
      { type: "equal", value: ": $129.00" },
    ]);
  });

  it("metrics report deltas of tokens, cost and latency", () => {
    const a = buildSession([{ model: "x" }, { final: "a" }]);
    const b = buildSession([{ model: "x" }, { model: "y" }, { final: "a" }]);
    const m = compareRuns(a, b).metrics;
    expect(m.inputTokens).toEqual({ base: 100, branch: 200, delta: 100 });
    expect(m.steps.delta).toBe(1);
    expect(m.latencyMs.delta).toBe(10);
    expect(m.costUsd.delta).toBeCloseTo(0.001);
  });

  it("edit distance of tool-name sequences counts substitutions, insertions and deletions", () => {
    expect(editDistance(["a", "b", "c"], ["a", "x", "c"])).toBe(1);
    expect(editDistance(["a", "b", "c"], ["c", "b", "a"])).toBe(2);
    expect(editDistance([], ["a", "b"])).toBe(2);
    expect(editDistance(["k", "i", "t", "t", "e", "n"], ["s", "i", "t", "t", "i", "n", "g"])).toBe(3);
  });

  it("handles 5,000+ steps fast, even when the middle differs", () => {
    const turns = (variant: number): TurnSpec[] => {
      const t: TurnSpec[] = [];
      for (let k = 0; k < 1700; k++) {
        const name = k % 500 === 0 && variant === 1 ? "other" : "search";
        t.push({
          model: `m${k}`,
          calls: [
            { name, args: { q: k }, result: k },
            { name: "read", args: { id: k }, result: k },
          ],
        });
      }
      t.push({ final: "x" });
      return t;
    };
    // Model inputs carry the last 20 messages, as agents with a context window send them.
    const a = buildSession(turns(0), { windowMessages: 20 });
    const b = buildSession(turns(1), { windowMessages: 20 });
    const started = performance.now();
    const c = compareRuns(a, b);
    const elapsed = performance.now() - started;
    expect(a.length).toBeGreaterThan(5000);
    expect(c.pairs.filter((p) => p.type === "inserted")).toHaveLength(4);
    expect(c.metrics.tool_sequence_distance).toBe(4);
    expect(elapsed).toBeLessThan(2000);
  });
});
