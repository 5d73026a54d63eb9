/**
 * Under a recorded model policy a model step whose input changed (an edited
 * tool result upstream) still gets the recorded output: it did not "change",
 * only what it was sent did. Views say so instead of a plain "changed".
 */
export const INPUT_ONLY_LABEL = "input changed, output recorded";

/** A branch step whose model input differs from the record while its output was copied. */
export function isInputOnlyStep(step: { kind: string; source?: string; inputDrift?: readonly string[] }): boolean {
  return step.kind === "model_call" && step.source === "recorded" && (step.inputDrift?.length ?? 0) > 0;
}

export { isInputOnlyPair } from "@/lib/session-view/compare-pairs";

/**
 * Why a model step's input differed from the record, in words: the engine's reasons are codes such as
 * "tool_result_changed:call_7Qm…" (the tool call's id after the colon).
 */
export function forkReasonWords(reason: string): string {
  const [code, id] = reason.split(/:(.*)/s, 2) as [string, string | undefined];
  switch (code) {
    case "system_prompt_edited":
      return "the system prompt was edited";
    case "tool_result_changed":
      return id ? `the result of ${id} changed` : "a tool result changed";
    case "model_output_changed":
      return id ? `the model output that made ${id} changed` : "an earlier model output changed";
    case "input_differs_at":
      // An agent-driven branch: the agent's own call first differed from the recording there.
      return id ? `the agent's call differs at ${id}` : "the agent's call differs";
    default:
      return reason.replaceAll("_", " ");
  }
}

export type VerdictOutcome = "pass" | "fail" | "check_error";

export function outcomeWord(outcome: VerdictOutcome | null | undefined): string {
  return outcome === "pass"
    ? "passed"
    : outcome === "fail"
      ? "failed"
      : outcome === "check_error"
        ? "could not be checked"
        : "not checked yet";
}

/** A divergence rate as a colour from white (0) to deep amber (1), for the trials strip. */
export function divergenceColour(rate: number): string {
  const r = Math.max(0, Math.min(1, rate));
  // slate-100 (241,245,249) → amber-600 (217,119,6)
  const mix = (a: number, b: number) => Math.round(a + (b - a) * r);
  return `rgb(${mix(241, 217)}, ${mix(245, 119)}, ${mix(249, 6)})`;
}

export function percent(x: number | null): string {
  return x === null ? "—" : `${Math.round(x * 1000) / 10}%`;
}
