import { describe, expect, it, vi } from "vitest";
import type { Message } from "./events";
import { replay, ReplayInputError, type ModelExecutor } from "./replay";
import { buildSession } from "./session-builder";
import { policyWith } from "./testing";

// A refund agent that denies a delivered order. Had get_order said "lost", would it refund?
const base = buildSession([
  { user: "Please refund order 1." },
  { model: "Looking it up.", calls: [{ name: "get_order", args: { id: 1 }, result: { status: "delivered" } }] },
  { model: "Order 1 was delivered, so it cannot be refunded." },
  { final: "Order 1 was delivered, so it cannot be refunded." },
]);
const getOrderSeq = base.findIndex((e) => e.kind === "tool_call");
const lost = { seq: getOrderSeq, op: "replace_tool_result" as const, value: { status: "lost" } };

/** A scripted agent model: its answer depends on the tool results it is sent. */
const agentModel = () =>
  vi.fn<ModelExecutor>(async (request) => {
    const results = request.messages.filter((m) => m.role === "tool").map((m) => JSON.stringify(m.content));
    const output: Message = results.some((r) => r.includes("refunded"))
      ? { role: "assistant", content: "Order 1 was lost; I refunded it." }
      : results.some((r) => r.includes('"lost"'))
        ? { role: "assistant", content: null, toolCalls: [{ id: "live_1", name: "refund", args: { id: 1 } }] }
        : { role: "assistant", content: "Order 1 was delivered, so it cannot be refunded." };
    return { output, model: "gpt-test", usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.0001 } };
  });

const forkLive = policyWith(
  { type: "history", scope: "baseline", on_miss: "fail" },
  { refund: { type: "static", cases: [{ match_mode: "subset", match: { id: 1 }, result: "refunded" }] } },
  { model: "recorded-until-divergence" },
);
const finalOf = (r: Awaited<ReturnType<typeof replay>>) => r.steps.find((s) => s.kind === "final_output")?.output;

describe("fork-live (recorded-until-divergence)", () => {
  it("an edited tool result changes the final answer: recorded up to the fork, live from it", async () => {
    const model = agentModel();
    const r = await replay({ base, policy: forkLive, edits: [lost], executors: { model } });
    expect(r.status).toBe("completed");
    expect(r.steps.map((s) => [s.kind, s.name, s.source])).toEqual([
      ["user_message", "user", "recorded"],
      ["model_call", "gpt-test", "recorded"],
      ["tool_call", "get_order", "edit"],
      ["model_call", "gpt-test", "live"],
      ["tool_call", "refund", "static"],
      ["model_call", "gpt-test", "live"],
      ["final_output", "final", "live"],
    ]);
    expect(r.fork).toEqual({
      seq: 3,
      modelStep: 1,
      baseSeq: 3,
      reasons: [`tool_result_changed:${(base[getOrderSeq]!.input as { callId: string }).callId}`],
    });
    expect(finalOf(r)).toBe("Order 1 was lost; I refunded it.");
    expect(model).toHaveBeenCalledTimes(2);
    // The live model saw the edited result.
    expect(JSON.stringify(model.mock.calls[0]![0].messages)).toContain('"lost"');
    expect(r.evidence.strength).toBe("live");
    expect(r.evidence.fork).toEqual(r.fork);
    expect(r.evidence.liveCalls.map((c) => [c.kind, c.step])).toEqual([
      ["model", 3],
      ["model", 5],
    ]);
  });

  it("under recorded-only the same edit does not change the answer: the model step's output is copied", async () => {
    const r = await replay({ base, policy: { ...forkLive, model: "recorded-only" }, edits: [lost] });
    expect(r.fork).toBeNull();
    expect(finalOf(r)).toBe("Order 1 was delivered, so it cannot be refunded.");
    const afterEdit = r.steps[3]!;
    expect(afterEdit).toMatchObject({ kind: "model_call", source: "recorded", output: base[3]!.output });
    expect(afterEdit.inputDrift).toEqual([
      `tool_result_changed:${(base[getOrderSeq]!.input as { callId: string }).callId}`,
    ]);
    expect(afterEdit.equalsBase).toBe(false);
  });

  it("liveFromModelStep runs the model live from that step even where nothing changed; earlier steps are copied", async () => {
    const model = agentModel();
    const r = await replay({ base, policy: { ...forkLive, liveFromModelStep: 1 }, edits: [], executors: { model } });
    expect(r.steps.map((s) => [s.kind, s.source])).toEqual([
      ["user_message", "recorded"],
      ["model_call", "recorded"],
      ["tool_call", "recorded"],
      ["model_call", "live"],
      // The live model gave the recorded answer, so the final output is the recorded one.
      ["final_output", "recorded"],
    ]);
    expect(r.fork).toEqual({ seq: 3, modelStep: 1, baseSeq: 3, reasons: ["live_from_step"] });
    expect(model).toHaveBeenCalledTimes(1);

    const fromStart = await replay({ base, policy: { ...forkLive, liveFromModelStep: 0 }, executors: { model } });
    expect(fromStart.fork).toMatchObject({ seq: 1, modelStep: 0, reasons: ["live_from_step"] });
    // Live from the start, the scripted model answers without looking the order up: one live step, then the end.
    expect(fromStart.steps.map((s) => [s.kind, s.source])).toEqual([
      ["user_message", "recorded"],
      ["model_call", "live"],
      ["final_output", "live"],
    ]);
    // Past the last model step it changes nothing: the branch reproduces the base.
    const past = await replay({ base, policy: { ...forkLive, liveFromModelStep: 2 }, executors: { model } });
    expect(past.fork).toBeNull();
    expect(past.comparability).toBe("exact");
  });

  it("without edits no model runs live and the branch reproduces the base exactly", async () => {
    const model = agentModel();
    const r = await replay({ base, policy: forkLive, executors: { model } });
    expect(model).not.toHaveBeenCalled();
    expect(r.fork).toBeNull();
    expect(r.comparability).toBe("exact");
    expect(r.evidence.strength).toBe("recorded");
    expect(r.steps.map((s) => s.source)).toEqual(base.map(() => "recorded"));
  });

  it("a base run that ends on tool results needs no live call either", async () => {
    const endsOnTools = buildSession([
      { user: "hi" },
      { model: "checking", calls: [{ name: "get_order", args: { id: 1 }, result: { status: "delivered" } }] },
    ]);
    const model = agentModel();
    const r = await replay({ base: endsOnTools, policy: forkLive, executors: { model } });
    expect(model).not.toHaveBeenCalled();
    expect(r.comparability).toBe("exact");
  });

  it("an edited model output is copied as the edit; the step after it runs live", async () => {
    const model = agentModel();
    const r = await replay({
      base,
      policy: forkLive,
      edits: [
        {
          seq: 1,
          op: "replace_model_output",
          value: { role: "assistant", content: null, toolCalls: [{ id: "e1", name: "refund", args: { id: 1 } }] },
        },
      ],
      executors: { model },
    });
    expect(r.steps.map((s) => s.source)).toEqual(["recorded", "edit", "static", "live", "live"]);
    expect(r.fork?.seq).toBe(3);
    // The live model saw the refund's result.
    expect(finalOf(r)).toBe("Order 1 was lost; I refunded it.");
  });

  it("a resume reads live outputs from the branch log instead of calling the model again", async () => {
    const first = await replay({ base, policy: forkLive, edits: [lost], executors: { model: agentModel() } });
    const model = agentModel();
    const again = await replay({
      base,
      policy: forkLive,
      edits: [lost],
      executors: { model },
      log: first.newLogEntries,
    });
    expect(model).not.toHaveBeenCalled();
    expect(again.steps.map((s) => s.output)).toEqual(first.steps.map((s) => s.output));
    expect(again.fork).toEqual(first.fork);
  });

  it("after a live reply without tool calls, the next live step sees that reply, not the recorded one", async () => {
    const chat = buildSession([
      { user: "Refund order 1?" },
      { model: "Shall I refund it?" },
      { user: "Yes." },
      { model: "Refunding.", calls: [{ name: "refund", args: { id: 1 }, result: "refunded" }] },
      { model: "Done." },
      { final: "Done." },
    ]);
    const model = vi.fn<ModelExecutor>(async (request) => ({
      output: {
        role: "assistant",
        content: request.messages.some((m) => m.role === "assistant" && m.content === "No refunds today.")
          ? "As I said: no."
          : "No refunds today.",
      },
    }));
    const r = await replay({
      base: chat,
      policy: forkLive,
      edits: [{ seq: 1, op: "replace_system_prompt", value: "Never refund." }],
      executors: { model },
    });
    expect(model).toHaveBeenCalledTimes(2);
    expect(model.mock.calls[1]![0].messages.map((m) => [m.role, m.content])).toEqual([
      ["system", "Never refund."],
      ["user", "Refund order 1?"],
      ["assistant", "No refunds today."],
      ["user", "Yes."],
    ]);
    expect(finalOf(r)).toBe("As I said: no.");
  });

  it("fails fast without a model executor", async () => {
    await expect(replay({ base, policy: forkLive, edits: [lost] })).rejects.toThrow(ReplayInputError);
  });
});
