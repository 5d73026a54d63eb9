import { describe, expect, it } from "vitest";
import { deepEqual, Policy } from "@/lib/replay";
import { applyChanges, applyFixChanges, describeChange, fixChanges, policyChanges } from "./fix-changes";

const BASE: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

describe("a fix as changes to a base policy", () => {
  it("lists each override, the default rule, the model and the run settings, and applying all gives the fix back", () => {
    // Parsed, as a request's policy is: its override map has no prototype, so "__proto__" is a tool's name.
    const fix = Policy.parse(
      JSON.parse(
        '{"model":"pinned-live","liveModel":"gpt-x","drift":"continue_to_terminal","maxSteps":9,"tools":{"default":{"type":"blocked"},"overrides":{"__proto__":{"type":"passthrough"},"b":{"type":"blocked"}}}}',
      ),
    );
    const changes = policyChanges(BASE, fix);
    expect(changes.map(describeChange)).toEqual([
      "__proto__: passthrough",
      "b: blocked",
      "every other tool: blocked",
      "model: pinned-live (gpt-x)",
      "run settings: maxSteps",
    ]);
    const back = applyChanges(BASE, changes);
    expect(deepEqual(back, fix)).toBe(true);
    expect(Object.keys(back.tools.overrides!)).toEqual(["__proto__", "b"]);
    expect(applyChanges(BASE, [])).toEqual(BASE);
    expect(applyChanges(BASE, [changes[1]!])).toEqual({
      ...BASE,
      tools: { ...BASE.tools, overrides: { b: { type: "blocked" } } },
    });
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it("a removed override and a removed setting are changes too", () => {
    const base: Policy = { ...BASE, maxSteps: 5, tools: { ...BASE.tools, overrides: { a: { type: "blocked" } } } };
    const changes = policyChanges(base, BASE);
    expect(changes.map(describeChange)).toEqual(["a: as the default", "run settings: maxSteps"]);
    expect(applyChanges(base, changes)).toEqual(BASE);
  });
});

describe("a fix's edits as changes", () => {
  const refund = { op: "replace_tool_result" as const, tool: "refund_payment", value: { refunded: false } };
  const lookup = {
    op: "replace_tool_result" as const,
    tool: "lookup_order",
    args: { order_id: "4821" },
    value: { status: "returned", note: "a long note that is cut short in words" },
  };
  const fix: Policy = { ...BASE, tools: { ...BASE.tools, overrides: { refund_payment: { type: "blocked" } } } };

  it("come after the policy's changes, one each, and name their tool, arguments and result", () => {
    const changes = fixChanges(BASE, fix, [refund, lookup]);
    expect(changes.map(describeChange)).toEqual([
      "refund_payment: blocked",
      'refund_payment returns {"refunded":false}',
      'lookup_order (order_id = "4821") returns {"note":"a long note that is cut short …',
    ]);
    expect(applyFixChanges(BASE, [changes[2]!, changes[0]!])).toEqual({ policy: fix, edits: [lookup] });
  });

  it("without a policy are the base alone plus the edits", () => {
    const changes = fixChanges(BASE, undefined, [refund]);
    expect(changes).toEqual([{ kind: "edit", edit: refund }]);
    expect(applyFixChanges(BASE, [])).toEqual({ policy: BASE, edits: [] });
  });
});
