import { describe, expect, it } from "vitest";
import { exportSeed000ToolPolicy, RECOMMENDED_RCA_POLICY } from "@/lib/replay";
import { detectPolicyForm, importPolicyText, toolPolicyFlag } from "./interchange";
import { presetPolicy } from "./presets";
import { validateInContext } from "./validation";

/** Kitaru's documented example, as its --tool-policy flag would carry it. */
const SEED_000_JSON = {
  default: { type: "history", scope: "baseline", on_miss: "fail" },
  tools: {
    get_current_time: { type: "passthrough" },
    refund_payment: {
      type: "static",
      cases: [{ match_mode: "exact", match: { order_id: "4821" }, result: "refund issued: $129.00" }],
      on_miss: "error_result",
    },
  },
};

describe("detecting the form of a pasted policy", () => {
  it.each([
    [{ model: "recorded-only", drift: "continue_to_terminal", tools: { default: { type: "blocked" } } }, "branchpoint"],
    [{ model: "recorded-only", tool: "pause-for-fixture", drift: "continue_to_terminal" }, "seed-003"],
    [SEED_000_JSON, "seed-000"],
    [{ tools: { x: { type: "passthrough" } } }, "seed-000"],
    [[], null],
    [{ hello: 1 }, null],
  ])("%j is %s", (value, form) => {
    expect(detectPolicyForm(value)).toBe(form);
  });
});

describe("importing", () => {
  it("Kitaru --tool-policy JSON: the tool rules, run-level choices from the recommended default, and that is said", () => {
    const result = importPolicyText(JSON.stringify(SEED_000_JSON));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.form).toBe("seed-000");
    expect(result.policy.model).toBe(RECOMMENDED_RCA_POLICY.model);
    expect(result.policy.tools.overrides?.refund_payment).toEqual(SEED_000_JSON.tools.refund_payment);
    expect(result.issues.map((i) => i.code)).toContain("assumed_default");
    // And it exports back to the same JSON.
    expect(exportSeed000ToolPolicy(result.policy.tools).json).toEqual(SEED_000_JSON);
  });

  it("policy-levels JSON: the level becomes its preset", () => {
    const result = importPolicyText(
      JSON.stringify({ model: "recorded-only", tool: "blocked", drift: "stop_on_first_divergence", maxSteps: 7 }),
    );
    expect(result.ok && result.policy).toEqual({
      model: "recorded-only",
      drift: "stop_on_first_divergence",
      maxSteps: 7,
      tools: { default: { type: "blocked" } },
    });
  });

  it("ours, as it is; a misspelt key is an issue at its path", () => {
    expect(importPolicyText(JSON.stringify(RECOMMENDED_RCA_POLICY))).toEqual({
      ok: true,
      form: "branchpoint",
      policy: RECOMMENDED_RCA_POLICY,
      issues: [],
    });
    const bad = importPolicyText(JSON.stringify({ ...RECOMMENDED_RCA_POLICY, maxStep: 3 }));
    expect(bad.ok).toBe(false);
    expect(bad.issues[0]?.message).toMatch(/maxStep/);
  });

  it("what the --tool-policy JSON cannot say is reported, not dropped", () => {
    const result = importPolicyText(
      JSON.stringify({ default: { type: "history", scope: "baseline", on_miss: "pause" }, extra: 1 }),
    );
    expect(result.issues.map((i) => [i.code, i.path])).toEqual(
      expect.arrayContaining([
        ["unknown_key", ["extra"]],
        ["not_expressible", ["default", "on_miss"]],
      ]),
    );
  });

  it("not JSON, or not a policy, is an error", () => {
    expect(importPolicyText("{").ok).toBe(false);
    expect(importPolicyText("[1]").ok).toBe(false);
  });
});

describe("the CLI flag", () => {
  it("quotes for a POSIX shell", () => {
    expect(toolPolicyFlag({ a: "it's" })).toBe(`--tool-policy '{"a":"it'\\''s"}'`);
    expect(toolPolicyFlag(SEED_000_JSON)).toBe(`--tool-policy '${JSON.stringify(SEED_000_JSON)}'`);
  });
});

describe("presets for an agent", () => {
  const openaiAgent = {
    id: "a",
    name: "harbor",
    adapter: "openai-agents" as const,
    capabilities: ["overrides" as const, "tool_policies" as const],
    versionCount: 1,
    tools: [
      { name: "lookup_order", sideEffect: "read" as const },
      { name: "refund_payment", sideEffect: "external_mutation" as const },
    ],
  };
  it("the recommended default is the published RCA default", () => {
    expect(presetPolicy("recommended", null)).toEqual(RECOMMENDED_RCA_POLICY);
  });
  it("for openai-agents a history default becomes named history overrides with a passthrough default, and validates", () => {
    const p = presetPolicy("recorded-only", openaiAgent);
    expect(p.tools).toEqual({
      default: { type: "passthrough", approval: "per_call" },
      overrides: {
        lookup_order: { type: "history", scope: "baseline", on_miss: "fail" },
        refund_payment: { type: "history", scope: "baseline", on_miss: "fail" },
      },
    });
    expect(validateInContext(p, openaiAgent).ok).toBe(true);
    const plain = validateInContext(presetPolicy("recorded-only", null), openaiAgent);
    expect(plain.ok).toBe(true);
    expect(plain.warnings.map((e) => e.code)).toEqual(["openai_agents_history_default"]);
  });
  it("without an agent, only context-free checks apply", () => {
    expect(validateInContext(presetPolicy("simulated", null), null).ok).toBe(true);
    expect(validateInContext({ model: "x" }, null).ok).toBe(false);
  });
});
