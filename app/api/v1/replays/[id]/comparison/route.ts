import { apiRoute, readQuery } from "@/lib/http/api";
import { presentComparisonJson } from "@/lib/http/replay-stream";
import { streamedJson } from "@/lib/http/stream";
import { replayCounterfactual } from "@/lib/server/counterfactual";
import { openReplayComparison, ReplayDocumentQuery } from "@/lib/server/replay-documents";

export const dynamic = "force-dynamic";

/**
 * The aligned comparison of the branch with its base, with `firstDivergence`,
 * metrics and the evidence. `?inputs=delta`: both sides' model inputs as
 * stored, with `inputPrefix` (as GET /api/v1/replays/:id?inputs=delta).
 *
 * Streamed: the runs are aligned over their step summaries first, then each
 * pair is written as both runs' rows are read, a window at a time.
 */
export const GET = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const { inputs } = readQuery(request, ReplayDocumentQuery);
  const { outline, baseRows, stepRows } = await openReplayComparison(principal, { replayId: params.id }, prisma);
  const counterfactual = await replayCounterfactual(principal, { replayId: params.id }, prisma);
  return streamedJson(
    presentComparisonJson(outline, baseRows, stepRows, counterfactual, { inputs: inputs ?? "full" }),
    {
      where: `GET /api/v1/replays/${params.id}/comparison`,
    },
  );
});
