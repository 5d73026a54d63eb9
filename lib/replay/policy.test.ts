import { describe, expect, it } from "vitest";
import {
  plainPolicy,
  Policy,
  policyHash,
  policyJsonSchema,
  RECOMMENDED_RCA_POLICY,
  ruleFor,
  toolLevelPreset,
  type ToolLevel,
} from "./policy";

describe("run-level policy and presets", () => {
  it("the recommended RCA default is recorded-only, pause-for-fixture, continue_to_terminal, maxSteps 100", () => {
    expect(RECOMMENDED_RCA_POLICY).toEqual({
      model: "recorded-only",
      drift: "continue_to_terminal",
      maxSteps: 100,
      tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
    });
    expect(Policy.safeParse(RECOMMENDED_RCA_POLICY).success).toBe(true);
  });

  it.each<[ToolLevel, unknown]>([
    ["recorded-only", { default: { type: "history", scope: "baseline", on_miss: "fail" } }],
    ["pause-for-fixture", { default: { type: "history", scope: "baseline", on_miss: "pause" } }],
    ["analyst-fixture", { default: { type: "fixture", on_miss: "pause" } }],
    ["simulated", { default: { type: "llm", model: "simulator" } }],
    ["live-explicit", { default: { type: "passthrough", approval: "per_call" } }],
    ["blocked", { default: { type: "blocked" } }],
  ])("tool level %s is a preset over the rules", (level, expected) => {
    expect(toolLevelPreset(level)).toEqual(expected);
  });

  it("live-readonly = passthrough for read-only tools only", () => {
    const tools = toolLevelPreset("live-readonly", {
      knownTools: [
        { name: "clock", sideEffect: "none" },
        { name: "search", sideEffect: "read" },
        { name: "pay", sideEffect: "write" },
        { name: "mystery", sideEffect: "unknown" },
      ],
    });
    expect(tools.overrides).toEqual({ clock: { type: "passthrough" }, search: { type: "passthrough" } });
    expect(tools.default).toEqual({ type: "history", scope: "baseline", on_miss: "pause" });
  });

  it("a named override answers its tool; the default answers all others", () => {
    const tools = { default: { type: "blocked" as const }, overrides: { clock: { type: "passthrough" as const } } };
    expect(ruleFor(tools, "clock")).toEqual({ rule: { type: "passthrough" }, path: ["tools", "overrides", "clock"] });
    expect(ruleFor(tools, "other")).toEqual({ rule: { type: "blocked" }, path: ["tools", "default"] });
    expect(ruleFor(tools, "toString").rule).toEqual({ type: "blocked" });
  });
});

describe("policy content hash", () => {
  it("the same document always has the same hash, whatever its key order", () => {
    const a = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      maxSteps: 100,
      tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
    } as const;
    const b = {
      tools: { default: { on_miss: "pause", scope: "baseline", type: "history" } },
      maxSteps: 100,
      drift: "continue_to_terminal",
      model: "recorded-only",
    } as const;
    expect(policyHash(a)).toBe(policyHash(b));
    expect(policyHash(a)).toMatch(/^[0-9a-f]{64}$/);
  });
  it("a different document has a different hash", () => {
    expect(policyHash(RECOMMENDED_RCA_POLICY)).not.toBe(policyHash({ ...RECOMMENDED_RCA_POLICY, maxSteps: 101 }));
  });
});

describe("policy JSON Schema", () => {
  it("is published from the zod schema and names every rule type", () => {
    const schema = policyJsonSchema();
    const text = JSON.stringify(schema);
    for (const t of ["history", "static", "fixture", "passthrough", "llm", "blocked"]) expect(text).toContain(`"${t}"`);
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(expect.arrayContaining(["model", "drift", "tools"]));
  });
});

describe("plainPolicy: what crosses between server and client components", () => {
  // Built from JSON text so that "__proto__" is an own key, as a stored or typed document gives it.
  const parsed = Policy.parse(
    JSON.parse(
      '{"model":"recorded-only","drift":"continue_to_terminal","tools":{"default":{"type":"blocked"},"overrides":{"__proto__":{"type":"passthrough"},"lookup_order":{"type":"history","scope":"baseline","on_miss":"pause"}}}}',
    ),
  );

  it("gives plain objects where parsing gave a null-prototype override map", () => {
    expect(Object.getPrototypeOf(parsed.tools.overrides)).toBeNull();
    const plain = plainPolicy(parsed);
    expect(Object.getPrototypeOf(plain.tools.overrides)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(plain.tools.overrides?.lookup_order)).toBe(Object.prototype);
  });

  it("keeps every tool, __proto__ included, and parses back to the same document", () => {
    const plain = plainPolicy(parsed);
    expect(Object.keys(plain.tools.overrides ?? {})).toEqual(["__proto__", "lookup_order"]);
    const again = Policy.parse(plain);
    expect(ruleFor(again.tools, "__proto__").rule).toEqual({ type: "passthrough" });
    expect(policyHash(again)).toBe(policyHash(parsed));
  });

  it("passes null and undefined through", () => {
    expect(plainPolicy(null)).toBeNull();
    expect(plainPolicy(undefined)).toBeUndefined();
  });
});
