import type { Comparability, EvidenceStrength, FirstDivergence, ProbeReport } from "@/lib/replay";
import type { ValidityLabel } from "./sections";

/** What the suggestion looks at: a replay's outcome and evidence, nothing else. */
export interface ValidityInput {
  status: string;
  comparability: Comparability | null;
  strength: EvidenceStrength;
  /** Branch steps that used an analyst fixture. */
  fixtureSteps: readonly number[];
  firstDivergence: Pick<FirstDivergence, "pairIndex" | "branchSeq"> | null;
  /** Branch index of each aligned pair (null for pairs only in the base), to place a removed-step divergence. */
  pairBranchIndex: readonly (number | null)[];
  probes: readonly Pick<ProbeReport, "variance">[];
  liveModelSteps: number;
  /** Branch steps answered from recordings a stale check found changed. */
  staleSteps?: readonly number[];
}

export interface ValiditySuggestion {
  label: ValidityLabel;
  reasons: string[];
}

/** The branch step at which the first divergence happens (for a step only in the base: the next branch step). */
function divergenceBranchStep(input: ValidityInput): number {
  const fd = input.firstDivergence;
  if (!fd) return Number.POSITIVE_INFINITY;
  if (fd.branchSeq !== null) return fd.branchSeq;
  for (let i = fd.pairIndex + 1; i < input.pairBranchIndex.length; i++) {
    const b = input.pairBranchIndex[i];
    if (b !== null && b !== undefined) return b;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Suggests a validity label from what the replay actually did. The analyst may
 * choose another; the suggestion and its reasons are shown beside the choice.
 * Order matters: the weakest property of the evidence decides.
 */
export function suggestValidity(input: ValidityInput): ValiditySuggestion {
  const suggestion = suggestFromRun(input);
  const stale = input.staleSteps ?? [];
  if (stale.length === 0) return suggestion;
  return {
    label: suggestion.label,
    reasons: [
      ...suggestion.reasons,
      `Step${stale.length === 1 ? "" : "s"} ${stale.join(", ")} used recorded answer${stale.length === 1 ? "" : "s"} that the tool no longer gives (a stale check found ${stale.length === 1 ? "it" : "them"} changed): the finding may not hold against today's tools.`,
    ],
  };
}

function suggestFromRun(input: ValidityInput): ValiditySuggestion {
  if (input.comparability === null || input.comparability === "non_comparable") {
    return {
      label: "non_comparable",
      reasons: [
        `The branch ended as ${input.status.replaceAll("_", " ")} before a terminal state, so the runs cannot be compared end to end.`,
      ],
    };
  }
  const varying = input.probes.filter((p) => p.variance > 0);
  if (varying.length > 0) {
    return {
      label: "model_nondeterministic",
      reasons: [
        `${varying.length} determinism probe${varying.length === 1 ? "" : "s"} saw different model outputs for the same input.`,
      ],
    };
  }
  if (input.strength === "drifting") {
    return {
      label: "model_nondeterministic",
      reasons: ["A live model step ran on a model other than the recorded one."],
    };
  }
  if (input.liveModelSteps > 0) {
    return {
      label: "model_nondeterministic",
      reasons: [
        `${input.liveModelSteps} model step${input.liveModelSteps === 1 ? "" : "s"} ran live; outputs may differ on another run.`,
      ],
    };
  }
  const at = divergenceBranchStep(input);
  const early = input.fixtureSteps.filter((s) => s <= at);
  if (early.length > 0) {
    const where = input.firstDivergence ? "at or before the first divergence" : "in a branch that never diverged";
    return {
      label: "sensitive_to_fixture",
      reasons: [
        `Analyst fixture${early.length === 1 ? "" : "s"} at step ${early.join(", ")} ${where}: the outcome depends on ${early.length === 1 ? "it" : "them"}.`,
      ],
    };
  }
  if (input.strength === "simulated") {
    return {
      label: "unsupported",
      reasons: ["Some results came from a simulator or provider fixtures, not from recorded evidence."],
    };
  }
  if (input.comparability === "diverged_but_comparable") {
    return {
      label: "diverged_but_comparable",
      reasons: ["The step sequences differ, but both runs reached a terminal state."],
    };
  }
  if (input.strength === "live") {
    return {
      label: "diverged_but_comparable",
      reasons: ["Some tool steps ran live; the replay is comparable but not fully recorded evidence."],
    };
  }
  return {
    label: "confirmed_by_replay",
    reasons: [
      input.comparability === "exact"
        ? "The branch reproduced every step of the base run from recorded evidence."
        : "Same step sequence as the base run, with results from recorded or controlled evidence.",
    ],
  };
}
