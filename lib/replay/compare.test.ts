import { describe, expect, it } from "vitest";
import { changedPaths, compareRuns, editDistance } from "./compare";
import type { HistoryRule } from "./policy";
import { buildSession, type TurnSpec } from "./session-builder";
import { modelSeqs, policyWith, requestEdit, run, sessionOf } from "./testing";

const history: HistoryRule = { type: "history", scope: "baseline", on_miss: "error_result" };

describe("comparison", () => {
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

  it("a call of the same tool whose arguments were edited is one changed pair, named as such", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: 4, op: "replace_tool_args", value: { id: 1, amount: 1 } }],
    });
    const c = compareRuns(base, r.steps);
    expect(c.pairs.map((p) => [p.type, p.id])).toEqual([
      ["equal", "p0-0"],
      ["equal", "p1-1"],
      ["equal", "p2-2"],
      ["equal", "p3-3"],
      ["changed", "p4-4"],
      ["changed", "p5-5"],
      ["equal", "p6-6"],
    ]);
    expect(c.firstDivergence).toEqual({
      pairIndex: 4,
      id: "p4-4",
      type: "changed",
      baseSeq: 4,
      branchSeq: 4,
      summary: "tool_call refund: arguments, result, error/status changed",
    });
    const pair = c.pairs[4]!;
    expect(pair.type === "changed" && changedPaths(pair.base, pair.branch)).toEqual([
      "error",
      "input.args.amount",
      "output",
      "status",
    ]);
    expect(c.metrics.tool_argument_changed).toBe(true);
  });

  it("same tool, other arguments, no replay alignment: paired as changed inside the gap, other tools still removed/inserted", () => {
    const a = sessionOf([
      { name: "search", args: { q: "a" }, result: 1 },
      { name: "audit", args: {}, result: 1 },
    ]);
    const b = sessionOf([
      { name: "search", args: { q: "b" }, result: 2 },
      { name: "notify", args: {}, result: 1 },
    ]);
    const c = compareRuns(a, b);
    expect(c.pairs.map((p) => p.type)).toEqual([
      "equal", // the user's message
      "changed", // the model asks for other arguments
      "changed", // search, q "a" → "b": one pair, not removed + inserted
      "removed", // audit
      "inserted", // notify
      "changed", // the model sees other results
      "equal", // the final answer
    ]);
    expect(c.pairs[2]).toMatchObject({ base: { name: "search" }, branch: { name: "search" } });
    expect(c.metrics.tool_argument_changed).toBe(true);
  });

  it("a paused branch: the base steps it never reached are unreached, out of every metric, and no divergence", async () => {
    const pause: HistoryRule = { type: "history", scope: "baseline", on_miss: "pause" };
    const withTokens = base.map((e) =>
      e.kind === "model_call" ? { ...e, usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.002 } } : e,
    );
    const r = await run(withTokens, policyWith(pause), {
      edits: [{ seq: 4, op: "replace_tool_args", value: { id: 1, amount: 1 } }],
    });
    expect(r.status).toBe("paused");
    expect(r.steps.map((s) => s.seq)).toEqual([0, 1, 2, 3]);
    const c = compareRuns(withTokens, r.steps, { branchComplete: false });
    expect(c.pairs.map((p) => [p.type, p.id])).toEqual([
      ["equal", "p0-0"],
      ["equal", "p1-1"],
      ["equal", "p2-2"],
      ["equal", "p3-3"],
      ["unreached", "r4"],
      ["unreached", "r5"],
      ["unreached", "r6"],
    ]);
    expect(c.firstDivergence).toBeNull();
    expect(c.metrics.not_reached).toBe(3);
    expect(c.metrics.steps).toEqual({ base: 4, branch: 4, delta: 0 });
    expect(c.metrics.costUsd.delta).toBe(0);
    expect(c.metrics.inputTokens).toEqual({ base: 200, branch: 200, delta: 0 });
    expect(c.metrics.toolCallsByTool).toEqual({ get_order: { base: 1, branch: 1, delta: 0 } });
    expect(c.metrics.tool_sequence_distance).toBe(0);
    // The same steps from a finished branch are removals, and count.
    const finished = compareRuns(withTokens, r.steps);
    expect(finished.pairs.slice(4).map((p) => p.type)).toEqual(["removed", "removed", "removed"]);
    expect(finished.metrics.steps.delta).toBe(-3);
    expect(finished.metrics.not_reached).toBe(0);
  });

  it("an early-ended branch that diverged first: only the base steps after its last reached one are unreached", () => {
    const a = sessionOf([{ name: "a", args: {}, result: 1 }], [{ name: "b", args: {}, result: 1 }]);
    // The branch calls x instead of a, then ends (paused) before the rest.
    const b = sessionOf([{ name: "x", args: {}, result: 1 }]).slice(0, 3);
    const c = compareRuns(a, b, { branchComplete: false });
    expect(c.pairs.map((p) => p.type)).toEqual([
      "equal",
      "changed",
      "inserted",
      "unreached",
      "unreached",
      "unreached",
      "unreached",
      "unreached",
    ]);
    expect(c.firstDivergence).toMatchObject({ type: "changed", summary: "model_call gpt-test: output changed" });
    expect(c.pairs[2]).toMatchObject({ type: "inserted", branch: { name: "x" } });
    expect(c.metrics.not_reached).toBe(5);
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

  // How fast is for bench/engine.ts (compareRuns on 1,000–100,000 events); a test asserts outcomes only.
  it("aligns 5,000+ steps exactly, even when the middle differs", () => {
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
    const c = compareRuns(a, b);
    expect(a.length).toBeGreaterThan(5000);
    expect(c.pairs.filter((p) => p.type === "inserted")).toHaveLength(4);
    expect(c.metrics.tool_sequence_distance).toBe(4);
  });
});
