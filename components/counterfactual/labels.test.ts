import { describe, expect, it } from "vitest";
import { divergenceColour, forkReasonWords, isInputOnlyPair, isInputOnlyStep, outcomeWord, percent } from "./labels";

describe("input changed, output recorded", () => {
  it("a copied model step whose input drifted", () => {
    expect(isInputOnlyStep({ kind: "model_call", source: "recorded", inputDrift: ["tool_result_changed:c1"] })).toBe(
      true,
    );
    expect(isInputOnlyStep({ kind: "model_call", source: "recorded" })).toBe(false);
    expect(isInputOnlyStep({ kind: "model_call", source: "live", inputDrift: ["x"] })).toBe(false);
    expect(isInputOnlyStep({ kind: "tool_call", source: "recorded", inputDrift: ["x"] })).toBe(false);
  });
  it("a changed pair with the same model output", () => {
    const base = { kind: "model_call", output: { role: "assistant", content: "hi" } };
    expect(isInputOnlyPair({ type: "changed", base, branch: { ...base, source: "recorded" } })).toBe(true);
    expect(isInputOnlyPair({ type: "changed", base, branch: { ...base, source: "live" } })).toBe(false);
    expect(
      isInputOnlyPair({
        type: "changed",
        base,
        branch: { kind: "model_call", output: { content: "no" }, source: "recorded" },
      }),
    ).toBe(false);
    expect(isInputOnlyPair({ type: "equal", base, branch: { ...base, source: "recorded" } })).toBe(false);
  });
});

it("words and colours", () => {
  expect(outcomeWord("fail")).toBe("failed");
  expect(outcomeWord(null)).toBe("not checked yet");
  expect(divergenceColour(0)).toBe("rgb(241, 245, 249)");
  expect(divergenceColour(1)).toBe("rgb(217, 119, 6)");
  expect(divergenceColour(7)).toBe("rgb(217, 119, 6)");
  expect(percent(0.35)).toBe("35%");
  expect(percent(null)).toBe("—");
});

describe("why a fork started, in words", () => {
  it("names the changed call, not the engine's code", () => {
    expect(forkReasonWords("tool_result_changed:call_7Qm")).toBe("the result of call_7Qm changed");
    expect(forkReasonWords("model_output_changed:call_a:b")).toBe("the model output that made call_a:b changed");
    expect(forkReasonWords("system_prompt_edited")).toBe("the system prompt was edited");
    expect(forkReasonWords("something_else")).toBe("something else");
  });
});
