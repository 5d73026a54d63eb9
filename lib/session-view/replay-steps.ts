import type { ReplayStep } from "@/lib/replay";
import { stepHead, stepPreview } from "./steps";

/**
 * A branch step as the replay page lists it: where it came from and how it
 * stands to its base step, and a one-line preview, never its inputs and
 * outputs (they load when the step is opened). Its size is bounded whatever
 * the step holds.
 */
export interface ReplayStepSummary {
  seq: number;
  kind: ReplayStep["kind"];
  name: string;
  status: ReplayStep["status"];
  source: ReplayStep["source"];
  baseSeq: number | null;
  equalsBase: boolean;
  /** A model step whose input differs from the record while its output was copied from it. */
  inputOnly: boolean;
  preview: string;
}

/** The summary of a step; a model call's input may be left out (the preview never reads it). */
export function summarizeReplayStep(
  s: Pick<
    ReplayStep,
    "seq" | "kind" | "name" | "status" | "source" | "baseSeq" | "equalsBase" | "input" | "output" | "error"
  > & {
    inputDrift?: readonly string[];
  },
): ReplayStepSummary {
  return {
    ...stepHead(s),
    source: s.source,
    baseSeq: s.baseSeq,
    equalsBase: s.equalsBase,
    inputOnly: s.kind === "model_call" && s.source === "recorded" && (s.inputDrift?.length ?? 0) > 0,
    preview: stepPreview(s),
  };
}
