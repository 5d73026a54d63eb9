import { apiRoute, readQuery } from "@/lib/http/api";
import { comparisonAnswer } from "@/lib/http/replay-answer";
import { ReplayDocumentQuery } from "@/lib/server/replays/replay-documents";

export const dynamic = "force-dynamic";

/**
 * The aligned comparison of the branch with its base, with `firstDivergence`,
 * metrics and the evidence. `?inputs=delta`: both sides' model inputs as
 * stored, with `inputPrefix` (as GET /api/v1/replays/:id?inputs=delta).
 *
 * Streamed: the runs are aligned over their step summaries first, then each
 * pair is written as both runs' rows are read, a window at a time. A run that
 * stores its steps before the first byte makes it read again (a 409 after three
 * tries), as GET /api/v1/replays/:id does; after it, the body is cut. The
 * counterfactual (fork, verdicts, trial set) is read with each read.
 */
export const GET = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const { inputs } = readQuery(request, ReplayDocumentQuery);
  return comparisonAnswer(principal, prisma, params.id, {
    inputs,
    where: `GET /api/v1/replays/${params.id}/comparison`,
  });
});
