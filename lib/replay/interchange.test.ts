import { describe, expect, it } from "vitest";
import {
  exportSeed000ToolPolicy,
  exportSeed003Policy,
  importSeed000ToolPolicy,
  importSeed003Policy,
} from "./interchange";
import type { Policy } from "./policy";

const SEED_000_CLI = `{"default": {"type": "history", "scope": "baseline", "on_miss": "fail"},
                "tools": {"get_current_time": {"type": "passthrough"}}}`;

const SEED_000_PYTHON = {
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

describe("Kitaru --tool-policy JSON", () => {
  it("Kitaru's documented CLI example round-trips exactly", () => {
    const parsed: unknown = JSON.parse(SEED_000_CLI);
    const imported = importSeed000ToolPolicy(parsed);
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;
    expect(imported.issues).toEqual([]);
    expect(imported.value.overrides).toEqual({ get_current_time: { type: "passthrough" } });
    const out = exportSeed000ToolPolicy(imported.value);
    expect(out.issues).toEqual([]);
    expect(JSON.stringify(out.json)).toBe(JSON.stringify(parsed));
  });

  it("Kitaru's documented Python example (static refund case) round-trips exactly", () => {
    const imported = importSeed000ToolPolicy(SEED_000_PYTHON);
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;
    expect(JSON.stringify(exportSeed000ToolPolicy(imported.value).json)).toBe(JSON.stringify(SEED_000_PYTHON));
  });

  it("no default means Kitaru's default, passthrough, and says so", () => {
    const r = importSeed000ToolPolicy({ tools: {} });
    expect(r.ok && r.value.default).toEqual({ type: "passthrough" });
    expect(r.issues.map((i) => i.code)).toContain("assumed_default");
  });

  it("unknown keys are reported, not dropped silently", () => {
    const r = importSeed000ToolPolicy({ default: { type: "passthrough" }, retries: 3 });
    expect(r.issues).toEqual([expect.objectContaining({ code: "unknown_key", path: ["retries"] })]);
  });

  it("an invalid rule is an error with its path", () => {
    const r = importSeed000ToolPolicy({ default: { type: "static", cases: [{ match: {} }] } });
    expect(r.ok).toBe(false);
    expect(r.issues[0]!.path.slice(0, 3)).toEqual(["default", "cases", 0]);
  });

  it.each([
    [
      "on_miss pause",
      { default: { type: "history", scope: "baseline", on_miss: "pause" } },
      "approximated",
      { type: "history", scope: "baseline", on_miss: "fail" },
    ],
    [
      "blocked",
      { default: { type: "blocked" } },
      "approximated",
      { type: "static", cases: [], on_miss: "error_result" },
    ],
    ["fixture", { default: { type: "fixture" } }, "approximated", { type: "static", cases: [], on_miss: "fail" }],
    [
      "approval per_call",
      { default: { type: "passthrough", approval: "per_call" } },
      "not_expressible",
      { type: "passthrough" },
    ],
  ] as const)("what the form cannot express is reported: %s", (_name, tools, code, exported) => {
    const out = exportSeed000ToolPolicy(tools);
    expect(out.issues.map((i) => i.code)).toContain(code);
    expect(out.json.default).toEqual(exported);
  });
});

describe("policy-levels JSON", () => {
  const shape = {
    model: "recorded-only",
    tool: "pause-for-fixture",
    drift: "continue_to_terminal",
    maxSteps: 100,
    temperatureOverride: 0,
  };

  it("the documented policy-levels shape imports as its preset and exports back unchanged", () => {
    const r = importSeed003Policy(shape);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.tools).toEqual({ default: { type: "history", scope: "baseline", on_miss: "pause" } });
    const out = exportSeed003Policy(r.value);
    expect(out.json).toEqual(shape);
    expect(out.issues).toEqual([]);
  });

  it.each(["recorded-only", "pause-for-fixture", "analyst-fixture", "live-explicit", "blocked"] as const)(
    "tool level %s round-trips",
    (tool) => {
      const r = importSeed003Policy({ ...shape, tool });
      expect(r.ok && exportSeed003Policy(r.value).json.tool).toBe(tool);
    },
  );

  it("per-tool overrides and budgets the shape cannot hold are reported", () => {
    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_until_budget",
      maxCostUsd: 2,
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "fail" },
        overrides: { refund: { type: "blocked" } },
      },
    };
    const out = exportSeed003Policy(policy);
    expect(out.json.tool).toBe("recorded-only");
    expect(out.issues.map((i) => i.path[0])).toEqual(expect.arrayContaining(["tools", "maxCostUsd"]));
  });

  it("an unknown tool level is an error", () => {
    expect(importSeed003Policy({ ...shape, tool: "yolo" }).ok).toBe(false);
  });
});
