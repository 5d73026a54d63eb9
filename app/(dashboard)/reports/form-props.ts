import type { ReportFormProps } from "@/components/reports/ReportForm";
import { defaultPickerFilter, pairChoice, type PairChoice } from "@/lib/reports/pair-choice";
import { suggestValidityFor } from "@/lib/reports/snapshot";
import { toRowOutlines } from "@/lib/session-view/compare-pairs";
import { COMPARE_FILTERS, shownBy, type CompareFilter } from "@/lib/session-view/compare-rows";
import type { getReplayComparisonPage } from "@/lib/server/replays";

/** The replay with its comparison aligned over digests (no step is read whole to list its pairs) and its evidence without the input-drift list. */
type ReplayComparison = Awaited<ReturnType<typeof getReplayComparisonPage>>;

/** Pairs per window of the pair picker: the first is sent with the page, the others load as the list scrolls. */
const PICKER_WINDOW = 100;

/**
 * What the report form shows from a finished replay: its policy, evidence, and
 * what its pair picker opens on: the counts per filter, the first window of
 * pairs, and the pairs pinned already (`pinned`: a draft's pins; a new report
 * pins the first divergence). Never every pair: the picker reads the others a
 * window at a time.
 */
export function reportFormProps(
  view: ReplayComparison,
  defaultTitle: string,
  pinned?: readonly string[],
): Omit<ReportFormProps, "save"> {
  const { comparison, evidence } = view;
  const fd = comparison.firstDivergence;
  const rows = toRowOutlines(comparison.pairs);
  const counts = Object.fromEntries(COMPARE_FILTERS.map((f) => [f, 0])) as Record<CompareFilter, number>;
  for (const r of rows) for (const f of COMPARE_FILTERS) if (shownBy(f, r)) counts[f]++;
  const filter = defaultPickerFilter(counts);
  const first: PairChoice[] = [];
  for (const r of rows) {
    if (first.length === PICKER_WINDOW) break;
    if (shownBy(filter, r)) first.push(pairChoice(r));
  }
  // Pins the comparison no longer has (a base imported again) are dropped, as saving would refuse them.
  const pins = new Set(pinned ?? (fd ? [fd.id] : []));
  const firstDivergence = fd ? rows.find((r) => r.id === fd.id) : undefined;
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
    picker: {
      // As the comparison page keys its windows: a run stored again makes another comparison.
      version: `${view.replay.status}:${view.branchCount}:${view.replay.finishedAt?.toISOString() ?? ""}`,
      counts,
      window: PICKER_WINDOW,
      firstDivergence: firstDivergence ? pairChoice(firstDivergence) : null,
      pinned: rows.filter((r) => pins.has(r.id)).map(pairChoice),
      initial: { filter, choices: first },
    },
    suggestion: suggestValidityFor(view),
  };
}
