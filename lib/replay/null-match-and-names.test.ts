import { describe, expect, it } from "vitest";
import { explainToolRule } from "./explain";
import { importSeed000ToolPolicy } from "./interchange";
import { Policy, policyHash, ruleFor, type ToolRule } from "./policy";
import { staticCaseMatches } from "./resolve";
import { validatePolicy } from "./validate";
import { policyWith, run, sessionOf, toolSteps } from "./testing";

const blocked: ToolRule = { type: "blocked" };

describe('static case with "match": null (the peer\'s catch-all)', () => {
  it("matches any arguments in subset and exact mode, as an absent match does", () => {
    for (const mode of ["subset", "exact"] as const) {
      const c = { match_mode: mode, match: null, result: "R" };
      expect(staticCaseMatches(c, { a: 1 })).toBe(true);
      expect(staticCaseMatches(c, "text")).toBe(true);
      expect(staticCaseMatches(c, null)).toBe(true);
    }
  });

  it("answers a replayed call after the cases before it missed", async () => {
    const base = sessionOf([{ name: "lookup", args: { id: 7 }, result: "recorded" }]);
    const rule: ToolRule = {
      type: "static",
      cases: [
        { match_mode: "subset", match: { id: 1 }, result: "one" },
        { match_mode: "subset", match: null, result: "fallback" },
      ],
      on_miss: "fail",
    };
    const r = await run(base, policyWith(blocked, { lookup: rule }));
    expect(r.status).toBe("completed");
    expect(toolSteps(r)[0]).toMatchObject({ source: "static", output: "fallback", miss: null });
  });

  it("keeps its meaning through a --tool-policy import: the imported policy answers with the catch-all", async () => {
    const imported = importSeed000ToolPolicy(
      JSON.parse(
        '{"default":{"type":"history","scope":"baseline","on_miss":"fail"},"tools":{"lookup":{"type":"static","cases":[{"match_mode":"exact","match":{"id":1},"result":"one"},{"match_mode":"exact","match":null,"result":"any"}],"on_miss":"fail"}}}',
      ),
    );
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;
    const policy: Policy = { model: "recorded-only", drift: "continue_to_terminal", tools: imported.value };
    const base = sessionOf([{ name: "lookup", args: { id: 2 }, result: "recorded" }]);
    const r = await run(base, policy);
    expect(toolSteps(r)[0]).toMatchObject({ source: "static", output: "any" });
    const tried = await explainToolRule(policy, { seq: toolSteps(r)[0]!.baseSeq! }, base);
    expect(tried.verdict).toMatchObject({ type: "answer", source: "static", output: "any" });
  });

  it("makes the cases after it unreachable, and the validator says so", () => {
    const policy = policyWith(blocked, {
      lookup: {
        type: "static",
        cases: [
          { match_mode: "subset", match: null, result: "any" },
          { match_mode: "subset", match: { id: 1 }, result: "never" },
        ],
      },
    });
    const issues = validatePolicy(policy, {
      adapter: "generic",
      capabilities: ["tool_policies", "overrides"],
      inExperiment: false,
    }).warnings.filter((i) => i.code === "static_case_unreachable");
    expect(issues).toEqual([expect.objectContaining({ path: ["tools", "overrides", "lookup", "cases", 1] })]);
  });
});

const ODD_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty"] as const;

/** A policy document as JSON text would give it: the override key is an own property, whatever its name. */
function parsedFromJson(name: string): unknown {
  return JSON.parse(
    `{"model":"recorded-only","drift":"continue_to_terminal","tools":{"default":{"type":"history","scope":"baseline","on_miss":"fail"},"overrides":{${JSON.stringify(name)}:{"type":"static","cases":[{"match_mode":"subset","result":"from the override"}]}}}}`,
  );
}

describe("override maps keep every own key", () => {
  for (const name of ODD_NAMES) {
    it(`an override named "${name}" survives parsing, hashing, replay and try-a-rule`, async () => {
      const raw = parsedFromJson(name);
      const policy = Policy.parse(raw);
      expect(Object.keys(policy.tools.overrides ?? {})).toEqual([name]);
      expect(ruleFor(policy.tools, name).path).toEqual(["tools", "overrides", name]);
      // The hash covers the override: it differs from the same document without it.
      const withoutOverride = Policy.parse({ ...policy, tools: { default: policy.tools.default } });
      expect(policyHash(policy)).not.toBe(policyHash(withoutOverride));
      expect(JSON.parse(JSON.stringify(policy))).toEqual(raw);

      const base = sessionOf([{ name, args: { q: 1 }, result: "recorded" }]);
      const r = await run(base, raw as Policy);
      expect(r.status).toBe("completed");
      expect(toolSteps(r)[0]).toMatchObject({ name, source: "static", output: "from the override" });
      expect(r.evidence.policyHash).toBe(policyHash(policy));

      const tried = await explainToolRule(raw as Policy, { seq: toolSteps(r)[0]!.baseSeq! }, base);
      expect(tried.rulePath).toEqual(["tools", "overrides", name]);
      expect(tried.verdict).toMatchObject({ type: "answer", source: "static", output: "from the override" });
    });

    it(`a tool named "${name}" without an override gets the default rule`, async () => {
      const policy = Policy.parse(parsedFromJson("other"));
      expect(ruleFor(policy.tools, name).path).toEqual(["tools", "default"]);
      const base = sessionOf([{ name, args: { q: 1 }, result: "recorded" }]);
      const r = await run(base, policy);
      expect(toolSteps(r)[0]).toMatchObject({ source: "recorded", output: "recorded" });
    });
  }

  it("a --tool-policy import keeps a tool named __proto__", () => {
    const imported = importSeed000ToolPolicy(
      JSON.parse('{"default":{"type":"blocked"},"tools":{"__proto__":{"type":"passthrough"}}}'),
    );
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;
    expect(Object.keys(imported.value.overrides ?? {})).toEqual(["__proto__"]);
    expect(ruleFor(imported.value, "__proto__").rule).toEqual({ type: "passthrough" });
    expect(
      Object.keys(
        Policy.parse({ model: "recorded-only", drift: "continue_to_terminal", tools: imported.value }).tools.overrides!,
      ),
    ).toEqual(["__proto__"]);
  });

  it("an invalid rule under an odd name is reported at its path, and an empty name is refused", () => {
    const bad = Policy.safeParse(
      JSON.parse(
        '{"model":"recorded-only","drift":"continue_to_terminal","tools":{"default":{"type":"blocked"},"overrides":{"__proto__":{"type":"nope"},"":{"type":"blocked"}}}}',
      ),
    );
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path)).toEqual([
      ["tools", "overrides", "__proto__", "type"],
      ["tools", "overrides", ""],
    ]);
  });
});
