import { CoveragePanel } from "@/components/replays/CoveragePanel";
import type { Coverage } from "@/lib/replay";

/** The policy's coverage summed over every replay of the experiment; unused recordings link to their branch. */
export function ExperimentCoveragePanel({
  experimentId,
  coverage,
}: {
  experimentId: string;
  coverage: Coverage & { replays: number };
}) {
  return (
    <CoveragePanel
      coverage={coverage}
      csvHref={`/api/experiments/${encodeURIComponent(experimentId)}/coverage.csv`}
      summary={`${coverage.replays} replay${coverage.replays === 1 ? "" : "s"}`}
    />
  );
}
