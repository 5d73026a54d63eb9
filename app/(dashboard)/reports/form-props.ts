import type { ReportFormProps } from "@/components/reports/ReportForm";
import type { ReportPicker, ReportPickerView } from "@/lib/server/replays/comparison-pages";
import type { ValiditySuggestion } from "@/lib/reports/validity";

/**
 * What the report form shows from a finished replay (getReportPicker): its
 * policy, evidence, and what its pair picker opens on (the counts per filter,
 * the first window of pairs, the pins the comparison has, and the draft's pins
 * it no longer has). Never every pair: the picker reads the others a window at
 * a time.
 */
export function reportFormProps(
  view: ReportPickerView & { picker: ReportPicker; suggestion: ValiditySuggestion },
  defaultTitle: string,
): Omit<ReportFormProps, "save"> {
  const { evidence, picker } = view;
  const fd = view.firstDivergence;
  return {
    replayId: view.replay.id,
    defaultTitle,
    policy: {
      document: view.replay.policySnapshot,
      hash: view.replay.policyHash,
      versionLabel: view.replay.policyVersion
        ? `${view.replay.policyVersion.policyName} v${view.replay.policyVersion.version}`
        : "ad-hoc policy (not a saved version)",
    },
    evidence: {
      strength: evidence.strength,
      comparability: view.replay.comparability,
      stepsBySource: evidence.stepsBySource,
      fixtureCount: view.fixtures.length,
      liveCallCount: evidence.liveCalls.length,
      firstDivergence: fd ? `First divergence at pair ${fd.pairIndex}: ${fd.summary}` : null,
    },
    picker,
    suggestion: view.suggestion,
  };
}

/** Whether the replay has finished, so the form has its picker. */
export function hasPicker(
  view: ReportPickerView,
): view is ReportPickerView & { picker: ReportPicker; suggestion: ValiditySuggestion } {
  return view.picker !== null && view.suggestion !== null;
}
