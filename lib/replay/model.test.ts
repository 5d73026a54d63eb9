import { describe, expect, it, vi } from "vitest";
import type { Message } from "./events";
import type { HistoryRule } from "./policy";
import { replay, ReplayInputError, type ModelExecutor } from "./replay";
import { buildSession } from "./session-builder";
import { modelSeqs, policyWith, run, sessionOf, toolSteps } from "./testing";

const history: HistoryRule = { type: "history", scope: "baseline", on_miss: "fail" };
const base = sessionOf(
  [{ name: "get_order", args: { id: 1 }, result: { total: 129 } }],
  [{ name: "refund", args: { id: 1 }, result: "ok" }],
);
const models = modelSeqs(base);
const modelSteps = (r: Awaited<ReturnType<typeof replay>>) => r.steps.filter((s) => s.kind === "model_call");

describe("model policies", () => {
  it("recorded-only copies captured model outputs by model-step index", async () => {
    const r = await run(base, policyWith(history));
    expect(modelSteps(r).map((s) => s.output)).toEqual(models.map((seq) => base[seq]!.output));
    expect(modelSteps(r).every((s) => s.source === "recorded")).toBe(true);
    expect(r.evidence.strength).toBe("recorded");
  });

  it("recorded-only flags input drift where the reconstructed input differs from the recorded one", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: 2, op: "replace_tool_result", value: { total: 0 } }],
    });
    // Every later step's recorded input holds the changed result (the history is cumulative).
    expect(r.evidence.inputDrift.map((d) => [d.modelStep, d.baseSeq])).toEqual([
      [1, models[1]],
      [2, models[2]],
    ]);
    expect(r.evidence.inputDrift[0]!.reasons[0]).toMatch(/^tool_result_changed/);
    expect(modelSteps(r)[0]!.inputDrift).toBeUndefined();
    expect(modelSteps(r)[1]!.inputDrift).toBeDefined();
    // The output is still the recorded one.
    expect(modelSteps(r)[1]!.output).toEqual(base[models[1]!]!.output);
  });

  it("determinism-probe repeats execution of recorded inputs N times to measure variance", async () => {
    let n = 0;
    const model = vi.fn<ModelExecutor>(async () => ({ output: { role: "assistant", content: `v${n++ % 2}` } }));
    const r = await run(base, policyWith(history, undefined, { model: "determinism-probe", probeRuns: 4 }), {
      executors: { model },
    });
    expect(model).toHaveBeenCalledTimes(4 * models.length);
    expect(r.evidence.probes[0]).toMatchObject({ runs: 4, distinctOutputs: 2, variance: 0.5, matchesRecorded: 0 });
    expect(modelSteps(r)[0]!.source).toBe("recorded");
    expect(model.mock.calls[0]![0].messages).toBe((base[models[0]!]!.input as { messages: Message[] }).messages);
  });

  it("pinned-live re-runs with a pinned live model; temperatureOverride applies", async () => {
    const model = vi.fn<ModelExecutor>(async (req) => ({
      output: base[models[req.modelStep]!]!.output as Message,
      model: "gpt-test",
    }));
    const r = await run(base, policyWith(history, undefined, { model: "pinned-live", temperatureOverride: 0.3 }), {
      executors: { model },
    });
    expect(model.mock.calls[0]![0]).toMatchObject({ model: "gpt-test", temperature: 0.3 });
    expect(modelSteps(r).every((s) => s.source === "live")).toBe(true);
    expect(r.evidence.strength).toBe("live");
    expect(r.newLogEntries.filter((e) => e.type === "live_model_output")).toHaveLength(models.length);
  });

  it("compatible-live on another model is drifting evidence", async () => {
    const model = vi.fn<ModelExecutor>(async (req) => ({
      output: base[models[req.modelStep]!]!.output as Message,
      model: "other-model",
    }));
    const r = await run(base, policyWith(history, undefined, { model: "compatible-live", liveModel: "other-model" }), {
      executors: { model },
    });
    expect(model.mock.calls[0]![0].model).toBe("other-model");
    expect(r.evidence.strength).toBe("drifting");
  });

  it("a live model step is never repeated on resume: its output comes from the log", async () => {
    const model = vi.fn<ModelExecutor>(async (req) => ({ output: base[models[req.modelStep]!]!.output as Message }));
    const policy = policyWith(history, undefined, { model: "pinned-live" });
    const first = await run(base, policy, { executors: { model } });
    await run(base, policy, { executors: { model }, log: first.newLogEntries });
    expect(model).toHaveBeenCalledTimes(models.length);
  });

  it("a model executor that throws stops the branch as failed and still returns the live results obtained before it", async () => {
    const tool = vi.fn(async () => ({ output: "refunded live" }));
    const model = vi.fn<ModelExecutor>(async (req) => {
      if (req.modelStep === 2) throw new Error("model endpoint timed out");
      return { output: base[models[req.modelStep]!]!.output as Message };
    });
    const policy = policyWith(history, { refund: { type: "passthrough" } }, { model: "pinned-live" });
    const tools = [{ name: "refund", sideEffect: "read" as const }];
    const r = await run(base, policy, { executors: { model, tool }, tools });
    expect(r.status).toBe("failed");
    expect(r.stop).toMatchObject({ code: "executor_error" });
    expect(r.stop!.message).toMatch(/model executor \(model step 2.*model endpoint timed out/);
    expect(r.pending).toBeNull();
    expect(r.comparability).toBe("non_comparable");
    expect(r.newLogEntries.map((e) => e.type)).toEqual(["live_model_output", "live_model_output", "live_tool_result"]);
    // A retry with that log does not repeat the live tool call.
    model.mockImplementation(async (req) => ({ output: base[models[req.modelStep]!]!.output as Message }));
    const retry = await run(base, policy, { executors: { model, tool }, tools, log: r.newLogEntries });
    expect(retry.status).toBe("completed");
    expect(tool).toHaveBeenCalledTimes(1);
  });

  it("a history lookup that throws stops the branch with executor_error, not a thrown replay", async () => {
    const r = await run(base, policyWith({ type: "history", scope: "agent", on_miss: "fail" }), {
      historyLookup: async () => {
        throw new Error("connection reset");
      },
    });
    expect(r.status).toBe("failed");
    expect(r.stop).toMatchObject({ code: "executor_error" });
    expect(r.stop!.message).toMatch(/history lookup failed: connection reset/);
  });

  it("a live model step sees the rebuilt conversation, with changed tool results", async () => {
    const model = vi.fn<ModelExecutor>(async (req) => ({ output: base[models[req.modelStep]!]!.output as Message }));
    await run(base, policyWith(history, undefined, { model: "pinned-live" }), {
      executors: { model },
      edits: [{ seq: 2, op: "replace_tool_result", value: { total: 5 } }],
    });
    const second = model.mock.calls[1]![0].messages;
    expect(second.find((m) => m.role === "tool")?.content).toEqual({ total: 5 });
  });

  it("provider-fixture takes outputs from the supplied fixture set", async () => {
    const outputs = models.map((seq) => ({ modelStep: models.indexOf(seq), output: base[seq]!.output as Message }));
    const r = await run(base, policyWith(history, undefined, { model: "provider-fixture" }), {
      providerFixtures: outputs,
    });
    expect(modelSteps(r).every((s) => s.source === "provider_fixture")).toBe(true);
    expect(r.evidence.strength).toBe("simulated");
    const missing = await run(base, policyWith(history, undefined, { model: "provider-fixture" }), {
      providerFixtures: outputs.slice(0, 1),
    });
    expect(missing.stop?.code).toBe("provider_fixture_missing");
  });

  it("blocked allows no model step: the branch halts at the first one", async () => {
    const r = await run(base, policyWith(history, undefined, { model: "blocked" }));
    expect(r.status).toBe("blocked");
    expect(modelSteps(r)).toHaveLength(0);
    expect(r.steps.map((s) => s.kind)).toEqual(["user_message"]);
  });

  it.each(["pinned-live", "compatible-live", "determinism-probe"] as const)(
    "%s fails fast when no executor is provided",
    async (model) => {
      await expect(run(base, policyWith(history, undefined, { model }))).rejects.toMatchObject({
        code: "model_executor_missing",
      });
    },
  );
});

describe("drift policies", () => {
  const changeFirst = { edits: [{ seq: 2, op: "replace_tool_result" as const, value: { total: 0 } }] };

  it("stop_on_first_divergence isolates the earliest changed event", async () => {
    const r = await run(base, policyWith(history, undefined, { drift: "stop_on_first_divergence" }), changeFirst);
    expect(r.status).toBe("stopped_on_divergence");
    expect(r.steps.at(-1)).toMatchObject({ seq: 2, source: "edit", equalsBase: false });
    expect(r.comparability).toBe("non_comparable");
  });

  it("continue_to_terminal keeps going for downstream behavior and final output", async () => {
    const r = await run(base, policyWith(history), changeFirst);
    expect(r.status).toBe("completed");
    expect(r.steps.at(-1)!.kind).toBe("final_output");
    expect(r.comparability).toBe("aligned");
  });

  it("continue_until_budget: maxSteps counts model and tool steps and ends the branch as budget_exhausted, never as an error", async () => {
    const r = await run(base, policyWith(history, undefined, { drift: "continue_until_budget", maxSteps: 3 }));
    expect(r.status).toBe("budget_exhausted");
    expect(r.steps.filter((s) => s.kind === "model_call" || s.kind === "tool_call")).toHaveLength(3);
    expect(r.stop?.code).toBe("budget");
  });

  it("maxTokens bounds live spending", async () => {
    const model = vi.fn<ModelExecutor>(async (req) => ({
      output: base[models[req.modelStep]!]!.output as Message,
      usage: { inputTokens: 600, outputTokens: 500 },
    }));
    const r = await run(base, policyWith(history, undefined, { model: "pinned-live", maxTokens: 1000 }), {
      executors: { model },
    });
    expect(r.status).toBe("budget_exhausted");
    expect(model).toHaveBeenCalledTimes(1);
  });
});

describe("edits", () => {
  it.each([
    ["a seq that does not exist", [{ seq: 999, op: "replace_tool_result", value: 1 }], "unknown_seq"],
    ["a tool op on a model call", [{ seq: models[0]!, op: "replace_tool_result", value: 1 }], "wrong_kind"],
    [
      "a model op on a tool call",
      [{ seq: 2, op: "replace_model_output", value: { role: "assistant", content: "x" } }],
      "wrong_kind",
    ],
    [
      "a model output that is not an assistant message",
      [{ seq: models[0]!, op: "replace_model_output", value: { role: "user", content: "x" } }],
      "invalid_value",
    ],
    ["a missing seq", [{ op: "replace_tool_result", value: 1 }], "schema"],
  ])("rejects %s before the replay starts", async (_name, edits, code) => {
    const executor = vi.fn();
    const error = await run(base, policyWith(history), { edits: edits as never, executors: { tool: executor } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ReplayInputError);
    expect((error as ReplayInputError).code).toBe("invalid_edits");
    expect((error as ReplayInputError).issues[0]).toMatchObject({ code });
    expect(executor).not.toHaveBeenCalled();
  });

  it("replace_tool_result: the step's source is edit", async () => {
    const r = await run(base, policyWith(history), { edits: [{ seq: 2, op: "replace_tool_result", value: "X" }] });
    expect(toolSteps(r)[0]).toMatchObject({ source: "edit", output: "X", edits: ["replace_tool_result"] });
    expect(r.evidence.strength).toBe("recorded");
  });

  it("replace_model_output: the branch follows the edited output", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: models[1]!, op: "replace_model_output", value: { role: "assistant", content: "I give up" } }],
    });
    expect(r.steps.filter((s) => s.kind === "tool_call")).toHaveLength(1);
    expect(r.steps.at(-1)).toMatchObject({ kind: "final_output", output: "I give up", source: "edit" });
    expect(r.comparability).toBe("diverged_but_comparable");
  });

  it("replace_system_prompt: flags input drift from that step on", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: models[1]!, op: "replace_system_prompt", value: "Be rude." }],
    });
    expect(r.evidence.inputDrift.map((d) => d.modelStep)).toEqual([1, 2]);
    expect(r.evidence.inputDrift[0]!.reasons).toContain("system_prompt_edited");
  });
});

describe("user messages", () => {
  it("a replay takes user_message events from the record as they are", async () => {
    const b = buildSession([
      { user: "hi" },
      { model: "ask", calls: [{ name: "t", args: {}, result: 1 }] },
      { user: "more please" },
      { model: "ok" },
      { final: "ok" },
    ]);
    const r = await run(b, policyWith(history));
    const users = r.steps.filter((s) => s.kind === "user_message");
    expect(users.map((u) => u.output)).toEqual([b[0]!.output, b[3]!.output]);
    expect(users.every((u) => u.source === "recorded" && u.equalsBase)).toBe(true);
    expect(r.comparability).toBe("exact");
  });
});

describe("evidence", () => {
  it("policy is evidence metadata: the result carries the policy, its hash and step counts by source", async () => {
    const r = await run(base, policyWith(history));
    expect(r.evidence.policy).toEqual(policyWith(history));
    expect(r.evidence.policyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.evidence.stepsBySource.recorded).toBe(models.length + 2);
  });
});

describe("robustness of alignment", () => {
  it("tool calls an importer could not link to their model step (parentSeq null) still align by call id", async () => {
    const unlinked = base.map((e) => (e.kind === "tool_call" ? { ...e, parentSeq: null } : e));
    const r = await replay({ base: unlinked, policy: policyWith(history) });
    expect(r.steps.filter((s) => s.kind === "tool_call").map((s) => s.baseSeq)).toEqual(
      unlinked.filter((e) => e.kind === "tool_call").map((e) => e.seq),
    );
    expect(r.steps.every((s) => s.equalsBase)).toBe(true);
  });

  it("a system-prompt edit under recorded-only keeps the recorded final output", async () => {
    const r = await run(base, policyWith(history), {
      edits: [{ seq: models.at(-1)!, op: "replace_system_prompt", value: "x" }],
    });
    expect(r.steps.at(-1)).toMatchObject({ kind: "final_output", source: "recorded", equalsBase: true });
  });
});
