import type { ReportFormProps } from "@/components/reports/ReportForm";
import { pairTitle } from "@/lib/reports/export";
import { suggestValidityFor } from "@/lib/reports/snapshot";
import type { getReplayComparisonPage } from "@/lib/server/replays";

/** The replay with its comparison aligned over digests (no step is read whole to list its pairs) and its evidence without the input-drift list. */
type ReplayComparison = Awaited<ReturnType<typeof getReplayComparisonPage>>;

/** What the report form shows from a finished replay: its policy, evidence and comparison pairs to pin. */
export function reportFormProps(view: ReplayComparison, defaultTitle: string): Omit<ReportFormProps, "save"> {
  const { comparison, evidence } = view;
  const fd = comparison.firstDivergence;
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
    pairs: comparison.pairs.map((p) => ({ id: p.id, type: p.type, label: pairTitle(p).replace(/^\w+: /, "") })),
    firstDivergenceId: fd?.id ?? null,
    suggestion: suggestValidityFor(view),
  };
}
