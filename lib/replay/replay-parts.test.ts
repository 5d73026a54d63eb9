import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cacheKey } from "./canonical";
import type { Message, SessionEvent } from "./events";
import { LogIndex } from "./log";
import type { Policy, ToolRule } from "./policy";
import { prepareReplay, type ReplayInput, type ReplayStep } from "./replay";
import { BranchConversation, messageOfUserEvent, messagesOf } from "./replay-conversation";
import { comparabilityOf, stepsEvidence, strengthOf } from "./replay-evidence";
import { modelStepOf, probeReport, recordedModelStep } from "./replay-model";
import { ReplayRun } from "./replay-run";
import { pairToolCalls, runToolCall } from "./replay-tools";
import { toolResolverFor } from "./resolver";
import { buildSession } from "./session-builder";
import { policyWith } from "./testing";

const history: ToolRule = { type: "history", scope: "baseline", on_miss: "fail" };

/** A replay run as `replay()` sets it up, before its loop starts. */
function runOf(base: SessionEvent[], policy: Policy, extra: Partial<ReplayInput> = {}): ReplayRun {
  const input: ReplayInput = { base, policy, ...extra };
  const prepared = prepareReplay(input);
  const run = new ReplayRun({ input, ...prepared, log: new LogIndex(input.log ?? []) });
  run.resolver = toolResolverFor(prepared.policy, prepared.base, null, {
    log: run.log,
    run: { liveAllowed: () => run.liveAllowed(), now: () => null },
  });
  return run;
}

// user (0), model (1) → a (2), b (3) recorded in reverse order, model (4), final (5).
const base = buildSession([
  { user: "hi" },
  {
    model: "calling",
    calls: [
      { name: "a", args: { k: 1 }, result: "A", id: "ca" },
      { name: "b", args: { k: 2 }, result: "B", id: "cb" },
    ],
    order: [1, 0],
  },
  { model: "done" },
  { final: "done" },
]);
const model0 = base[1]!;
const requested = (model0.output as Message).toolCalls!;

describe("ReplayRun (the run's state)", () => {
  it("names the budget that is spent, maxSteps before the safety cap", () => {
    const run = runOf(base, policyWith(history, undefined, { maxSteps: 2 }));
    expect(run.overBudget()).toBeNull();
    run.budgetSteps = 2;
    expect(run.overBudget()).toBe("maxSteps (2) reached");
    const uncapped = runOf(base, policyWith(history));
    uncapped.budgetSteps = base.length * 4 + 1000;
    expect(uncapped.overBudget()).toBe(
      `no maxSteps given; the engine's safety cap (${base.length * 4 + 1000} steps) reached`,
    );
  });

  it("emits a differing step, notes the structural divergence and halts under stop_on_first_divergence", () => {
    const run = runOf(base, policyWith(history, undefined, { drift: "stop_on_first_divergence" }));
    expect(run.emit(run.recordedStep(base[0]!))).toBe(true);
    const other: ReplayStep = { ...run.recordedStep(base[1]!), kind: "tool_call", name: "x", equalsBase: false };
    expect(run.emit(other)).toBe(false);
    expect(run.conversation.structureDiverged).toBe(true);
    expect(run.status).toBe("stopped_on_divergence");
    expect(run.stop).toMatchObject({ code: "first_divergence", step: 2 });
  });

  it("copies a recorded event at the branch's position, dropping its parent once the branch has shifted", () => {
    const run = runOf(base, policyWith(history));
    expect(run.recordedStep(base[2]!)).toMatchObject({ seq: 0, baseSeq: 2, parentSeq: null, source: "recorded" });
    run.steps.push(run.recordedStep(base[0]!), run.recordedStep(base[1]!));
    expect(run.recordedStep(base[2]!)).toMatchObject({ seq: 2, baseSeq: 2, parentSeq: 1, equalsBase: true });
  });

  it("finishes with the branch's own final output when the last model output differs", () => {
    const run = runOf(base, policyWith(history));
    run.finish({ output: { role: "assistant", content: "other" }, source: "edit", equalsBase: false });
    expect(run.steps.map((s) => [s.kind, s.output, s.source, s.equalsBase])).toEqual([
      ["final_output", "other", "edit", false],
    ]);
  });
});

describe("BranchConversation (rebuilding a model step's input)", () => {
  const model1 = base[4]!;
  const recordedMessages = messagesOf(model1.input);

  it("returns the recorded messages themselves while nothing changed", () => {
    const conversation = new BranchConversation();
    const rebuilt = conversation.reconstructInput(1, model1);
    expect(rebuilt.messages).toBe(recordedMessages);
    expect(rebuilt.drift).toEqual([]);
  });

  it("puts a changed tool result in and names it", () => {
    const conversation = new BranchConversation();
    conversation.changedToolResults.set("cb", { role: "tool", toolCallId: "cb", name: "b", content: "changed" });
    const rebuilt = conversation.reconstructInput(1, model1);
    expect(rebuilt.drift).toEqual(["tool_result_changed:cb"]);
    expect(rebuilt.messages.find((m) => m.toolCallId === "cb")!.content).toBe("changed");
    expect(rebuilt.messages.find((m) => m.toolCallId === "ca")).toBe(
      recordedMessages.find((m) => m.toolCallId === "ca"),
    );
  });

  it("replaces the system prompt when an edit set another one", () => {
    const conversation = new BranchConversation();
    conversation.systemPrompt = { value: "Be terse." };
    const rebuilt = conversation.reconstructInput(1, model1);
    expect(rebuilt.drift).toEqual(["system_prompt_edited"]);
    expect(rebuilt.messages[0]).toEqual({ role: "system", content: "Be terse." });
  });

  it("rebuilds the conversation from the branch once its structure diverged", () => {
    const conversation = new BranchConversation();
    const input = messagesOf(model0.input);
    conversation.advance(model0.input, model0.output as Message);
    conversation.sinceLastModelStep.push({ role: "user", content: "more" });
    conversation.structureDiverged = true;
    const rebuilt = conversation.reconstructInput(1, model1);
    expect(rebuilt.drift).toEqual(["conversation_rebuilt"]);
    expect(rebuilt.messages).toEqual([...input, model0.output, { role: "user", content: "more" }]);
  });

  it("substitutes a model output that differs by its first tool call id, and rebuilds after one without calls", () => {
    const conversation = new BranchConversation();
    const changed: Message = { role: "assistant", content: "x", toolCalls: [{ id: "ca", name: "a", args: {} }] };
    conversation.noteModelOutput(changed, false);
    expect(conversation.changedModelOutputs.get("ca")).toBe(changed);
    conversation.noteModelOutput({ role: "assistant", content: "no calls" }, false);
    expect(conversation.structureDiverged).toBe(true);
  });

  it("reads a user event's message from its output or its input", () => {
    expect(messageOfUserEvent(base[0]!)).toEqual({ role: "user", content: "hi" });
    expect(messageOfUserEvent({ ...base[0]!, output: null, input: "plain" })).toEqual({
      role: "user",
      content: "plain",
    });
  });
});

describe("pairToolCalls (pairing requested calls with recordings)", () => {
  it("keeps the record's order when every call pairs with a recording", () => {
    const run = runOf(base, policyWith(history));
    const paired = pairToolCalls(run, requested, model0);
    expect(paired.map((p) => [p.request.id, p.baseEvent?.seq])).toEqual([
      ["cb", 2],
      ["ca", 3],
    ]);
    expect(run.conversation.structureDiverged).toBe(false);
  });

  it("keeps the requested order when a call has no recording, and notes the recorded call not made", () => {
    const run = runOf(base, policyWith(history));
    const paired = pairToolCalls(run, [requested[0]!, { id: "new", name: "c", args: {} }], model0);
    expect(paired.map((p) => [p.request.id, p.baseEvent?.seq ?? null])).toEqual([
      ["ca", 3],
      ["new", null],
    ]);
    expect(run.conversation.structureDiverged).toBe(true);
  });

  it("claims a call the importer left without a parent once, by call id", () => {
    const orphaned = base.map((e) => (e.seq === 3 ? { ...e, parentSeq: null } : e));
    const run = runOf(orphaned, policyWith(history));
    expect(pairToolCalls(run, [requested[0]!], null)[0]!.baseEvent?.seq).toBe(3);
    expect(pairToolCalls(run, [requested[0]!], null)[0]!.baseEvent).toBeNull();
  });
});

describe("runToolCall (one requested call)", () => {
  it("answers from the recording and builds a step equal to the base", async () => {
    const run = runOf(base, policyWith(history));
    const [first] = pairToolCalls(run, requested, model0);
    const step = await runToolCall(run, first!, 1);
    expect(step).toMatchObject({ name: "b", output: "B", source: "recorded", equalsBase: true, parentSeq: 1 });
    expect(step!.input).toBe(base[2]!.input);
    expect(step!.occurrence).toBe(0);
  });

  it("lets an edited result stand in and still consumes the recording", async () => {
    const run = runOf(base, policyWith(history), { edits: [{ seq: 2, op: "replace_tool_result", value: "edited" }] });
    const [first] = pairToolCalls(run, requested, model0);
    const step = await runToolCall(run, first!, 1);
    expect(step).toMatchObject({ output: "edited", source: "edit", equalsBase: false, edits: ["replace_tool_result"] });
    expect(run.resolver.occurrence(cacheKey("b", { k: 2 })!).used).toBe(1);
  });

  it("stops on a miss that fails, naming the call", async () => {
    const run = runOf(base, policyWith(history), { edits: [{ seq: 2, op: "replace_tool_args", value: { k: 9 } }] });
    const [first] = pairToolCalls(run, requested, model0);
    expect(await runToolCall(run, first!, 1)).toBeNull();
    expect(run.status).toBe("failed");
    expect(run.stop).toMatchObject({
      code: "tool_miss_fail",
      call: { tool: "b", callId: "cb", args: { k: 9 }, cacheKey: cacheKey("b", { k: 9 }), baseSeq: 2 },
    });
  });

  it("pauses for a fixture with the closest recording as the prefill", async () => {
    const pause: ToolRule = { type: "history", scope: "baseline", on_miss: "pause" };
    const run = runOf(base, policyWith(pause), { edits: [{ seq: 2, op: "replace_tool_args", value: { k: 9 } }] });
    const [first] = pairToolCalls(run, requested, model0);
    expect(await runToolCall(run, first!, 1)).toBeNull();
    expect(run.status).toBe("paused");
    expect(run.pending).toMatchObject({ waitingFor: "fixture", tool: "b", step: 0, prefill: { seq: 2, output: "B" } });
    expect(run.stop).toMatchObject({ code: "paused", step: 0 });
  });
});

describe("model steps", () => {
  it("copies a recorded model step, with an edited output marked as an edit", () => {
    const edited: Message = { role: "assistant", content: "edited" };
    const run = runOf(base, policyWith(history), { edits: [{ seq: 4, op: "replace_model_output", value: edited }] });
    const copied = recordedModelStep(run, 0, model0);
    expect(copied).toMatchObject({ source: "recorded", input: model0.input, usage: model0.usage });
    const outcome = recordedModelStep(run, 1, base[4]!);
    expect(outcome).toMatchObject({ output: edited, source: "edit", usage: null, durationMs: null });
    const step = modelStepOf(run, outcome, base[4]!);
    expect(step).toMatchObject({ kind: "model_call", equalsBase: false, edits: ["replace_model_output"], baseSeq: 4 });
  });

  it("reports how probe runs agree with each other and with the record", () => {
    const a = { role: "assistant", content: "a" };
    const b = { role: "assistant", content: "b" };
    expect(probeReport(2, 5, [a, a, b], a)).toEqual({
      modelStep: 2,
      step: 5,
      runs: 3,
      distinctOutputs: 2,
      matchesRecorded: 2,
      variance: 1 - 2 / 3,
    });
  });
});

describe("evidence", () => {
  const none = {
    recorded: 0,
    static: 0,
    fixture: 0,
    provider_fixture: 0,
    live: 0,
    llm: 0,
    error_result: 0,
    blocked: 0,
    edit: 0,
  };

  it("rates strength by the weakest source that answered", () => {
    expect(strengthOf({ ...none, recorded: 3 }, false, 0)).toBe("recorded");
    expect(strengthOf({ ...none, static: 1 }, false, 0)).toBe("controlled");
    expect(strengthOf({ ...none, static: 1, llm: 1 }, false, 0)).toBe("simulated");
    expect(strengthOf({ ...none, llm: 1 }, false, 1)).toBe("live");
    expect(strengthOf({ ...none, live: 1 }, true, 0)).toBe("drifting");
  });

  it("counts model and tool steps by source and lists the fixtures used", () => {
    const steps: ReplayStep[] = base.map((e) => ({
      ...e,
      source: "recorded" as const,
      baseSeq: e.seq,
      miss: null,
      equalsBase: true,
      edits: [],
    }));
    steps[2] = { ...steps[2]!, source: "fixture" as const, fixtureId: "f1" };
    const { stepsBySource, fixturesUsed } = stepsEvidence(steps, [
      { type: "fixture", id: "f1", at: null, step: 2, tool: "b", cacheKey: null, output: 1, author: "ana", note: "n" },
    ]);
    expect(stepsBySource).toEqual({ ...none, recorded: 3, fixture: 1 });
    expect(fixturesUsed).toEqual([{ step: 2, tool: "b", fixtureId: "f1", author: "ana", note: "n", at: null }]);
    expect(comparabilityOf("completed", steps, base)).toBe("exact");
    expect(comparabilityOf("paused", steps, base)).toBe("non_comparable");
    steps[5] = { ...steps[5]!, output: "other", equalsBase: false };
    expect(comparabilityOf("completed", steps, base)).toBe("aligned");
    expect(comparabilityOf("completed", steps.slice(0, 5), base)).toBe("diverged_but_comparable");
  });
});

describe("BranchConversation.substituteChanges (incremental over long conversations)", () => {
  type Op =
    | { op: "append"; kind: "tool" | "assistant" | "user" | "system"; id: number }
    | { op: "changeTool"; id: number }
    | { op: "changeModel"; id: number }
    | { op: "systemPrompt"; value: string }
    | { op: "rebuild"; shape: "shared" | "copied" | "window" };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        op: fc.constant("append" as const),
        kind: fc.constantFrom("tool" as const, "assistant" as const, "user" as const, "system" as const),
        id: fc.integer({ min: 0, max: 5 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("changeTool" as const), id: fc.integer({ min: 0, max: 5 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant("changeModel" as const), id: fc.integer({ min: 0, max: 5 }) }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("systemPrompt" as const), value: fc.constantFrom("a", "b") }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant("rebuild" as const),
        shape: fc.constantFrom("shared" as const, "copied" as const, "window" as const),
      }),
    },
  );

  it("gives the same messages and reasons as substituting every message afresh", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const conversation = new BranchConversation();
        const history: Message[] = [{ role: "system", content: "s" }];
        for (const o of ops) {
          if (o.op === "append") {
            const id = `c${o.id}`;
            history.push(
              o.kind === "tool"
                ? { role: "tool", toolCallId: id, content: history.length }
                : o.kind === "assistant"
                  ? { role: "assistant", content: history.length, toolCalls: [{ id, name: "t", args: {} }] }
                  : { role: o.kind, content: history.length },
            );
          } else if (o.op === "changeTool") {
            const step = { ...base[2]!, input: { callId: `c${o.id}` }, output: "changed", equalsBase: false };
            conversation.noteToolStep(step as ReplayStep);
          } else if (o.op === "changeModel") {
            const output: Message = {
              role: "assistant",
              content: "x",
              toolCalls: [{ id: `c${o.id}`, name: "t", args: {} }],
            };
            conversation.noteModelOutput(output, false);
          } else if (o.op === "systemPrompt") {
            conversation.setSystemPrompt(o.value);
          } else {
            const recorded =
              o.shape === "shared"
                ? [...history]
                : o.shape === "copied"
                  ? history.map((m) => ({ ...m }))
                  : history.slice(Math.max(0, history.length - 3));
            const fresh = new BranchConversation();
            for (const [k, v] of conversation.changedToolResults) fresh.changedToolResults.set(k, v);
            for (const [k, v] of conversation.changedModelOutputs) fresh.changedModelOutputs.set(k, v);
            fresh.systemPrompt = conversation.systemPrompt;
            const expected = fresh.substituteChanges(recorded);
            const actual = conversation.substituteChanges(recorded);
            expect(actual.drift).toEqual(expected.drift);
            expect(actual.messages).toEqual(expected.messages);
            actual.messages.forEach((m, k) => {
              if (expected.messages[k] === recorded[k]) expect(m).toBe(recorded[k]);
            });
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
