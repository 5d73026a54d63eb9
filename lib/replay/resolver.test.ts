import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "./events";
import { explainToolRule, type RuleVerdict } from "./explain";
import { toolCallArgs } from "./identity";
import type { Policy, ToolRule } from "./policy";
import { replay } from "./replay";
import type { ToolOutcome } from "./resolve-types";
import { createToolResolver } from "./resolver";
import { buildSession, type CallSpec, type TurnSpec } from "./session-builder";

/** Tool names include ones an object prototype has, so override lookups are exercised too. */
const TOOLS = ["search", "get_order", "__proto__", "constructor"] as const;

const callArb: fc.Arbitrary<CallSpec> = fc
  .record({
    name: fc.constantFrom(...TOOLS),
    args: fc.constantFrom({ q: "a" }, { q: "b" }, { id: 1 }, { id: 1, deep: { x: [1, 2] } }, {}),
    failed: fc.boolean(),
  })
  .map(({ name, args, failed }) =>
    failed ? { name, args, error: { type: "Timeout", message: "slow" } } : { name, args, result: { from: name, args } },
  );

const sessionArb: fc.Arbitrary<SessionEvent[]> = fc
  .array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 })
  .map((groups) => {
    const turns: TurnSpec[] = [{ user: "start" }];
    for (const calls of groups) turns.push({ model: "m", calls });
    turns.push({ model: "done" }, { final: "done" });
    return buildSession(turns);
  });

const ruleArb: fc.Arbitrary<ToolRule> = fc.oneof(
  fc.constantFrom<ToolRule>(
    { type: "history", scope: "baseline", on_miss: "error_result" },
    { type: "history", scope: "baseline", on_miss: "fail" },
    { type: "blocked" },
    { type: "fixture", on_miss: "error_result" },
  ),
  fc
    .array(
      fc.record({
        match_mode: fc.constantFrom("exact" as const, "subset" as const),
        match: fc.constantFrom(undefined, null, { q: "a" }, { id: 1 }, {}),
        result: fc.constantFrom("S1", "S2", null),
      }),
      { maxLength: 3 },
    )
    .map((cases): ToolRule => ({
      type: "static",
      cases: cases.map((c) => (c.match === undefined ? { match_mode: c.match_mode, result: c.result } : c)),
      on_miss: "error_result",
    })),
);

const policyArb: fc.Arbitrary<Policy> = fc
  .tuple(ruleArb, fc.dictionary(fc.constantFrom(...TOOLS), ruleArb, { maxKeys: 3 }))
  .map(([defaultRule, raw]) => {
    // Built from JSON text so that a "__proto__" override is an own key, as a stored document gives it.
    const overrides = JSON.parse(JSON.stringify(Object.entries(raw).map(([k, v]) => [k, v]))) as [string, ToolRule][];
    const text = `{${overrides.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
    return {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: defaultRule, overrides: JSON.parse(text) as Record<string, ToolRule> },
    };
  });

/** Branch calls: the recorded ones, some with other arguments (they miss history, or match other cases). */
const caseArb = sessionArb.chain((base) => {
  const tools = base.filter((e) => e.kind === "tool_call");
  return fc.tuple(
    fc.constant(base),
    policyArb,
    fc.subarray(tools).chain((edited) =>
      fc.tuple(
        ...edited.map((t) =>
          fc.constantFrom({ q: "a" }, { q: "z" }, { id: 2 }).map((value) => ({
            seq: t.seq,
            op: "replace_tool_args" as const,
            value,
          })),
        ),
      ),
    ),
  );
});

function summary(outcome: ToolOutcome | RuleVerdict) {
  if (outcome.type === "answer")
    return { type: "answer", source: outcome.source, output: outcome.output, error: outcome.error };
  if (outcome.type === "stop") return { type: "stop", code: outcome.code };
  return { type: outcome.type };
}

describe("property: one resolver, one answer", () => {
  it("replay(), createToolResolver and explainToolRule agree on every call of a generated branch", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ([base, policy, edits]) => {
        const r = await replay({ base, policy, edits });
        const resolver = createToolResolver(policy, base);
        const toolSteps = r.steps.filter((s) => s.kind === "tool_call");
        for (const step of toolSteps) {
          const args = toolCallArgs(step);
          const used = step.cacheKey === null ? 0 : resolver.occurrence(step.cacheKey).used;
          const outcome = await resolver.resolve({ tool: step.name, args });
          const fromReplay = { type: "answer", source: step.source, output: step.output, error: step.error };
          expect(summary(outcome)).toEqual(fromReplay);
          const explained = await explainToolRule(policy, { tool: step.name, args, occurrence: used }, base);
          expect(summary(explained.verdict)).toEqual(fromReplay);
        }
        if (r.stop?.call) {
          // The call the replay stopped at: the resolver, in the same state, stops the same way.
          const { tool, args } = r.stop.call;
          const key = r.stop.call.cacheKey;
          const used = key === null ? 0 : resolver.occurrence(key).used;
          const outcome = await resolver.resolve({ tool, args });
          expect(summary(outcome)).toEqual({ type: "stop", code: r.stop.code });
          const explained = await explainToolRule(policy, { tool, args, occurrence: used }, base);
          expect(summary(explained.verdict)).toEqual({ type: "stop", code: r.stop.code });
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it("resolves a sequence with occurrence state: identical calls get the recorded occurrences in order", () => {
    const base = buildSession([
      { user: "u" },
      {
        model: "m",
        calls: [
          { name: "poll", args: { id: 1 }, result: "first" },
          { name: "poll", args: { id: 1 }, result: "second" },
        ],
      },
      { model: "done" },
    ]);
    const resolver = createToolResolver(
      {
        model: "recorded-only",
        drift: "continue_to_terminal",
        tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
      },
      base,
    );
    const outputs = [1, 2, 3].map(() => {
      const o = resolver.resolve({ tool: "poll", args: { id: 1 } });
      if (o instanceof Promise) throw new Error("baseline history must resolve synchronously");
      return o.type === "answer" ? [o.source, o.output] : [o.type];
    });
    expect(outputs).toEqual([
      ["recorded", "first"],
      ["recorded", "second"],
      ["error_result", null],
    ]);
  });
});
