import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactInputs } from "@/lib/sessions/inputs";
import { cacheKey } from "./canonical";
import type { Message, SessionEvent } from "./events";
import type { FixtureEntry } from "./log";
import { conversationWork, MessageList, withFullInputs } from "./message-list";
import type { Policy } from "./policy";
import { replay, type ModelExecutor, type ModelRequest, type ReplayInput, type ReplayResult } from "./replay";
import { buildSession, type CallSpec, type TurnSpec } from "./session-builder";

/** A run's model inputs in the stored form: each holds the messages it adds after `inputPrefix`. */
function storedForm(events: readonly SessionEvent[]): SessionEvent[] {
  const compact = compactInputs(events, { digests: false });
  return events.map((e, i) => {
    const prefix = compact[i]!.prefix;
    return prefix === null ? e : { ...e, input: compact[i]!.input, inputPrefix: prefix };
  });
}

const callArb: fc.Arbitrary<CallSpec> = fc
  .record({
    name: fc.constantFrom("search", "get_order", "refund"),
    args: fc.constantFrom({ q: "a" }, { q: "b" }, { id: 1 }, {}),
    result: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)),
  })
  .map(({ name, args, result }) => ({ name, args, result }));

const turnArb: fc.Arbitrary<TurnSpec | TurnSpec[]> = fc.oneof(
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((user) => ({ user })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }).map((user) => [{ model: "reply" }, { user }] as TurnSpec[]) },
  {
    weight: 5,
    arbitrary: fc
      .array(callArb, { minLength: 1, maxLength: 2 })
      .map((calls) => ({ model: "m", calls, order: calls.map((_, k) => k).reverse() })),
  },
);

/** Generated conversations, sent whole at every model step or as a window of the last messages. */
const sessionArb: fc.Arbitrary<SessionEvent[]> = fc
  .tuple(fc.array(turnArb, { minLength: 1, maxLength: 10 }), fc.constantFrom(undefined, 2, 5))
  .map(([turns, windowMessages]) =>
    buildSession([{ user: "start" }, ...turns.flat(), { model: "done" }, { final: "done" }], {
      ...(windowMessages === undefined ? {} : { windowMessages }),
    }),
  );

/** A scripted live model: its answer depends on every message it is sent (so a wrong input shows). */
function scriptedModel(requests: string[]): ModelExecutor {
  return async (request: ModelRequest) => {
    const text = JSON.stringify(request.messages);
    requests.push(text);
    let h = 0;
    for (let k = 0; k < text.length; k++) h = (h * 31 + text.charCodeAt(k)) | 0;
    const output: Message =
      request.modelStep >= 6 || (h & 3) === 0
        ? { role: "assistant", content: `reply ${h & 7}` }
        : {
            role: "assistant",
            content: null,
            toolCalls: [{ id: `live_${request.step}`, name: "search", args: { q: (h & 4) === 0 ? "a" : "b" } }],
          };
    return { output, model: "gpt-test" };
  };
}

type Scenario = {
  base: SessionEvent[];
  policy: Policy;
  edits: NonNullable<ReplayInput["edits"]>;
  log: FixtureEntry[];
  live: boolean;
};

const scenarioArb: fc.Arbitrary<Scenario> = sessionArb.chain((base) => {
  const tools = base.filter((e) => e.kind === "tool_call").map((e) => e.seq);
  const models = base.filter((e) => e.kind === "model_call").map((e) => e.seq);
  const editArb = fc.oneof(
    ...(tools.length > 0
      ? [
          fc.record({
            seq: fc.constantFrom(...tools),
            op: fc.constant("replace_tool_result" as const),
            value: fc.constantFrom("edited", { ok: false }),
          }),
          fc.record({
            seq: fc.constantFrom(...tools),
            op: fc.constant("replace_tool_args" as const),
            value: fc.constantFrom({ q: "edited" }, { id: 2 }),
          }),
        ]
      : []),
    fc.record({
      seq: fc.constantFrom(...models),
      op: fc.constant("replace_model_output" as const),
      value: fc.constantFrom<Message>(
        { role: "assistant", content: "no more calls" },
        { role: "assistant", content: "x", toolCalls: [{ id: "e1", name: "search", args: { q: "a" } }] },
      ),
    }),
    fc.record({
      seq: fc.constantFrom(...models),
      op: fc.constant("replace_system_prompt" as const),
      value: fc.constantFrom("Be terse.", "You are a support agent."),
    }),
  );
  return fc
    .record({
      base: fc.constant(base),
      edits: fc.uniqueArray(editArb, { maxLength: 3, selector: (e) => `${e.seq}:${e.op}` }),
      model: fc.constantFrom(
        "recorded-only" as const,
        "recorded-until-divergence" as const,
        "pinned-live" as const,
        "provider-fixture" as const,
      ),
      drift: fc.constantFrom(
        "continue_to_terminal" as const,
        "continue_to_terminal" as const,
        "continue_to_terminal" as const,
        "stop_on_first_divergence" as const,
      ),
      onMiss: fc.constantFrom("fail" as const, "pause" as const),
    })
    .map(({ base, edits, model, drift, onMiss }) => {
      const args = edits.filter((e) => e.op === "replace_tool_args");
      // Fixtures for the calls whose arguments an edit changed, keyed as the branch will look them up.
      const log: FixtureEntry[] = args.map((e, k) => {
        const name = base.find((x) => x.seq === e.seq)!.name;
        return {
          type: "fixture",
          id: `f${k}`,
          at: null,
          step: 0,
          tool: name,
          cacheKey: cacheKey(name, e.value),
          output: { fixture: k },
          author: "ana",
          note: "",
        };
      });
      const policy: Policy = {
        model,
        drift,
        tools: { default: { type: "history", scope: "baseline", on_miss: onMiss } },
      };
      return { base, policy, edits, log, live: model === "recorded-until-divergence" || model === "pinned-live" };
    });
});

async function run(s: Scenario, base: SessionEvent[], inputs: "full" | "compact") {
  const requests: string[] = [];
  const providerFixtures =
    s.policy.model === "provider-fixture"
      ? [0, 1, 2, 3].map((modelStep) => ({
          modelStep,
          output: { role: "assistant" as const, content: `fixture ${modelStep}` },
        }))
      : undefined;
  const result = await replay({
    base,
    policy: s.policy,
    edits: s.edits,
    log: s.log,
    inputs,
    ...(s.live ? { executors: { model: scriptedModel(requests) } } : {}),
    ...(providerFixtures ? { providerFixtures } : {}),
  });
  return { result, requests };
}

/** A result with its steps' model inputs whole (the stored form expanded). */
const expanded = (r: ReplayResult): ReplayResult => ({ ...r, steps: withFullInputs(r.steps) });

describe("compact model inputs (message lists that share their prefixes)", () => {
  it("give the same replay as whole inputs, for either form of the base, with edits, drift, fixtures and live models", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const stored = storedForm(s.base);
        const full = await run(s, s.base, "full");
        const fromStored = await run(s, stored, "compact");
        const fromWhole = await run(s, s.base, "compact");
        const storedToFull = await run(s, stored, "full");

        expect(expanded(fromStored.result)).toEqual(full.result);
        expect(expanded(fromWhole.result)).toEqual(full.result);
        expect(storedToFull.result).toEqual(full.result);
        // The live model was sent the same messages.
        expect(fromStored.requests).toEqual(full.requests);
        expect(storedToFull.requests).toEqual(full.requests);

        // Stored, a compact replay's steps are what the full steps are stored as: the same digests.
        const digests = (r: ReplayResult) => compactInputs(r.steps).map((c) => c.digest);
        expect(digests(fromStored.result)).toEqual(digests(full.result));
        // Every pointer names the model step before it with a messages list.
        let previous: number | null = null;
        for (const step of fromStored.result.steps) {
          if (step.kind !== "model_call" || !Array.isArray((step.input as { messages?: unknown })?.messages)) continue;
          if (step.inputPrefix) expect(step.inputPrefix.seq).toBe(previous);
          previous = step.seq;
        }
      }),
      { numRuns: 250 },
    );
  }, 120_000);

  it("keep the recorded input object of every step whose input stands, in either form", async () => {
    const base = buildSession([
      { user: "hi" },
      { model: "m", calls: [{ name: "search", args: { q: "a" }, result: 1 }] },
      { model: "m", calls: [{ name: "search", args: { q: "b" }, result: 2 }] },
      { model: "done" },
      { final: "done" },
    ]);
    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    };
    const stored = storedForm(base);
    const whole = await replay({ base, policy });
    const compact = await replay({ base: stored, policy, inputs: "compact" });
    const models = (r: ReplayResult) => r.steps.filter((s) => s.kind === "model_call");
    expect(models(whole).map((s) => s.input)).toEqual(base.filter((e) => e.kind === "model_call").map((e) => e.input));
    models(whole).forEach((s) => expect(s.input).toBe(base[s.seq]!.input));
    models(compact).forEach((s) => {
      expect(s.input).toBe(stored[s.seq]!.input);
      expect(s.inputPrefix ?? null).toEqual(stored[s.seq]!.inputPrefix ?? null);
    });
    expect(compact.comparability).toBe("exact");
  });

  it("refuse a base whose pointer names a model call it does not have", async () => {
    const base = storedForm(
      buildSession([{ user: "hi" }, { model: "m", calls: [{ name: "s", args: {}, result: 1 }] }, { model: "done" }]),
    );
    const broken = base.map((e) => (e.inputPrefix ? { ...e, inputPrefix: { seq: e.inputPrefix.seq, count: 99 } } : e));
    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    };
    await expect(replay({ base: broken, policy })).rejects.toThrow("which the base run does not have");
  });
});

/** A coding agent's session: every model step is sent the whole conversation so far (as the bench's). */
function longConversation(turns: number): SessionEvent[] {
  const specs: TurnSpec[] = [{ user: "Fix the failing test." }];
  for (let t = 0; t < turns; t++)
    specs.push({ model: `step ${t}`, calls: [{ name: "read_file", args: { path: `f${t}.ts` }, result: `body ${t}` }] });
  specs.push({ model: "Done." }, { final: "Done." });
  return buildSession(specs);
}

/** Messages the engine walked (read, substituted, compared, copied) per model step of one replay. */
async function workPerModelStep(turns: number, edited: boolean, inputs: "full" | "compact"): Promise<number> {
  const base = storedForm(longConversation(turns));
  const firstTool = base.find((e) => e.kind === "tool_call")!;
  const edits = edited ? [{ seq: firstTool.seq, op: "replace_tool_result" as const, value: "edited" }] : [];
  const policy: Policy = {
    model: "recorded-only",
    drift: "continue_to_terminal",
    tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
  };
  const before = conversationWork.messages;
  const r = await replay({ base, policy, edits, inputs });
  const work = conversationWork.messages - before;
  expect(r.status).toBe("completed");
  expect(r.evidence.inputDrift.length).toBe(edited ? turns : 0);
  return work / (turns + 1);
}

describe("the work per model step of a long conversation", () => {
  it("is bounded by the messages the step adds, untouched or with the first tool result edited (counted, not timed)", async () => {
    for (const edited of [false, true]) {
      const short = await workPerModelStep(100, edited, "compact");
      const long = await workPerModelStep(1_000, edited, "compact");
      // Each model step adds 2 messages (the last reply and its tool result); the first drifting step reads 3.
      expect(short).toBeLessThanOrEqual(4);
      expect(long).toBeLessThanOrEqual(4);
    }
    // The counter does see the length of the conversation: the whole form copies every drifting input out.
    expect(await workPerModelStep(1_000, true, "full")).toBeGreaterThan(500);
  }, 60_000);

  it("counts a list's whole messages only when they are asked for", () => {
    const a: Message = { role: "user", content: "a" };
    const b: Message = { role: "assistant", content: "b" };
    const c: Message = { role: "tool", toolCallId: "x", content: "c" };
    const root = MessageList.of([a, b]);
    const next = new MessageList(root, 2, [c]);
    const cut = new MessageList(next, 1, [c]);
    expect(next.toArray()).toEqual([a, b, c]);
    expect(cut.toArray()).toEqual([a, c]);
    expect(cut.length).toBe(2);
    expect(() => new MessageList(root, 3, [])).toThrow("cannot take 3 messages of a list of 2");
  });
});
