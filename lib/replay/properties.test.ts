import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { cacheKey } from "./canonical";
import type { SessionEvent } from "./events";
import type { FixtureEntry } from "./log";
import type { Policy } from "./policy";
import { replay, type ReplayStep } from "./replay";
import type { ToolExecutor } from "./tool-call";
import { buildSession, type CallSpec, type TurnSpec } from "./session-builder";

/**
 * Generated sessions: user turns, model turns with 0–3 calls issued in
 * parallel (their events in any order), tools called repeatedly with the same
 * arguments (so occurrences matter), failures and null results.
 */
const callArb: fc.Arbitrary<CallSpec> = fc
  .record({
    name: fc.constantFrom("search", "get_order", "refund", "clock"),
    args: fc.oneof(
      fc.constantFrom({ q: "a" }, { q: "b" }, { id: 1 }, { id: 1, deep: { x: [1, 2] } }, {}),
      fc.record({ n: fc.integer({ min: 0, max: 3 }) }),
    ),
    outcome: fc.oneof(
      fc.record({
        result: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.record({ ok: fc.boolean() })),
      }),
      fc.record({
        error: fc.record({ type: fc.constantFrom("Timeout", "NotFound"), message: fc.string({ maxLength: 8 }) }),
      }),
    ),
  })
  .map(({ name, args, outcome }) => ({ name, args, ...outcome }));

const turnArb: fc.Arbitrary<TurnSpec | TurnSpec[]> = fc.oneof(
  { weight: 1, arbitrary: fc.string({ maxLength: 5 }).map((user) => ({ user })) },
  // A reply without tool calls, then the user's next turn (multi-turn sessions).
  { weight: 1, arbitrary: fc.string({ maxLength: 5 }).map((user) => [{ model: "reply" }, { user }] as TurnSpec[]) },
  {
    weight: 4,
    arbitrary: fc.array(callArb, { minLength: 1, maxLength: 3 }).chain((calls) =>
      fc
        .shuffledSubarray(
          calls.map((_, k) => k),
          { minLength: calls.length, maxLength: calls.length },
        )
        .map((order) => ({ model: "m", calls, order })),
    ),
  },
);

const sessionArb: fc.Arbitrary<SessionEvent[]> = fc
  .tuple(fc.array(turnArb, { minLength: 0, maxLength: 8 }), fc.boolean())
  .map(([turns, withFinal]) =>
    buildSession([{ user: "start" }, ...turns.flat(), { model: "done" }, ...(withFinal ? [{ final: "done" }] : [])]),
  );

const recordedPolicy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

const asEvent = (s: ReplayStep): SessionEvent => ({
  seq: s.seq,
  kind: s.kind,
  name: s.name,
  input: s.input,
  output: s.output,
  error: s.error,
  status: s.status,
  startedAt: s.startedAt,
  durationMs: s.durationMs,
  usage: s.usage,
  parentSeq: s.parentSeq,
  cacheKey: s.cacheKey,
  occurrence: s.occurrence,
});

describe("property: the replay invariant", () => {
  it("recorded-only + history/baseline + no edits reproduces the base run exactly (repeats, failures, parallel calls)", async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, async (base) => {
        const r = await replay({ base, policy: recordedPolicy });
        expect(r.status).toBe("completed");
        expect(r.comparability).toBe("exact");
        expect(r.steps.map(asEvent)).toEqual(base);
        expect(r.evidence.strength).toBe("recorded");
      }),
      { numRuns: 150 },
    );
  });
});

describe("property: edits are local in time", () => {
  const editArb = sessionArb.chain((base) => {
    const tools = base.filter((e) => e.kind === "tool_call");
    const models = base.filter((e) => e.kind === "model_call");
    const options: fc.Arbitrary<{
      seq: number;
      op: "replace_tool_result" | "replace_tool_args" | "replace_model_output" | "replace_system_prompt";
      value: unknown;
    }>[] = [
      fc.constantFrom(...models).map((m) => ({
        seq: m.seq,
        op: "replace_model_output" as const,
        value: { role: "assistant", content: "changed" },
      })),
      fc
        .constantFrom(...models)
        .map((m) => ({ seq: m.seq, op: "replace_system_prompt" as const, value: "new prompt" })),
    ];
    if (tools.length > 0) {
      options.push(
        fc
          .tuple(fc.constantFrom(...tools), fc.jsonValue())
          .map(([t, value]) => ({ seq: t.seq, op: "replace_tool_result" as const, value })),
      );
      options.push(
        fc
          .constantFrom(...tools)
          .map((t) => ({ seq: t.seq, op: "replace_tool_args" as const, value: { changed: t.seq } })),
      );
    }
    return fc.tuple(fc.constant(base), fc.oneof(...options));
  });

  it("an edit at step k changes nothing before k", async () => {
    await fc.assert(
      fc.asyncProperty(
        editArb,
        fc.constantFrom<"error_result" | "fail" | "pause">("error_result", "fail", "pause"),
        async ([base, edit], onMiss) => {
          const policy: Policy = {
            ...recordedPolicy,
            tools: { default: { type: "history", scope: "baseline", on_miss: onMiss } },
          };
          const r = await replay({ base, policy, edits: [edit] });
          const before = r.steps.filter((s) => s.seq < edit.seq);
          // Everything before k ran, and equals the base run.
          expect(before.map(asEvent)).toEqual(base.slice(0, edit.seq));
          expect(before.every((s) => s.equalsBase && s.source === "recorded")).toBe(true);
          // And the edit did something at k (the test can fail the other way too).
          const at = r.steps.find((s) => s.seq === edit.seq);
          if (at && edit.op !== "replace_system_prompt") expect(at.equalsBase && at.edits.length === 0).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("property: pausing, supplying a fixture and resuming = having the fixture from the start", () => {
  it("iterative resumes reach the same branch as one run with every fixture given up front, and never repeat a live call", async () => {
    const arb = sessionArb
      .filter((base) => base.some((e) => e.kind === "tool_call"))
      .chain((base) => {
        const tools = base.filter((e) => e.kind === "tool_call");
        return fc.tuple(
          fc.constant(base),
          fc.uniqueArray(fc.constantFrom(...tools.map((t) => t.seq)), { minLength: 1, maxLength: 3 }),
          fc.jsonValue(),
        );
      });
    await fc.assert(
      fc.asyncProperty(arb, async ([base, editedSeqs, fixtureValue]) => {
        const edits = editedSeqs.map((seq) => ({ seq, op: "replace_tool_args" as const, value: { missing: seq } }));
        const policy: Policy = {
          ...recordedPolicy,
          tools: {
            default: { type: "history", scope: "baseline", on_miss: "pause" },
            overrides: { clock: { type: "passthrough" } },
          },
        };
        const tools = [{ name: "clock", sideEffect: "read" as const }];
        const tool = vi.fn<ToolExecutor>(async (call) => ({ output: `live@${call.step}` }));
        const fixtureFor = (step: number, name: string, key: string | null, id: string): FixtureEntry => ({
          type: "fixture",
          id,
          at: null,
          step,
          tool: name,
          cacheKey: key,
          output: { fixture: fixtureValue, key },
          author: "ana",
          note: "",
        });

        // Pause, supply, resume — until the branch stops pausing.
        let log: Parameters<typeof replay>[0]["log"] = [];
        let result = await replay({ base, policy, edits, tools, executors: { tool }, log });
        let pauses = 0;
        while (result.status === "paused") {
          const p = result.pending!;
          log = [...log, ...result.newLogEntries, fixtureFor(p.step, p.tool, p.cacheKey, `f${pauses}`)];
          result = await replay({ base, policy, edits, tools, executors: { tool }, log });
          pauses++;
          expect(pauses).toBeLessThanOrEqual(edits.length);
        }
        log = [...log, ...result.newLogEntries];
        const liveSteps = result.steps.filter((s) => s.source === "live").length;
        expect(tool).toHaveBeenCalledTimes(liveSteps);

        // The same fixtures, written before the first run (keyed by the edited calls' cache keys).
        const upFront = edits.map((e, k) => {
          const name = base.find((x) => x.seq === e.seq)!.name;
          return fixtureFor(0, name, cacheKey(name, e.value), `u${k}`);
        });
        const fresh = vi.fn<ToolExecutor>(async (call) => ({ output: `live@${call.step}` }));
        const direct = await replay({ base, policy, edits, tools, executors: { tool: fresh }, log: upFront });
        expect(direct.status).toBe(result.status);
        expect(direct.steps.map(asEvent)).toEqual(result.steps.map(asEvent));
        expect(direct.steps.map((s) => s.source)).toEqual(result.steps.map((s) => s.source));
      }),
      { numRuns: 100 },
    );
  });
});
