import { route } from "@/lib/http/route";
import { comparisonAnswer, comparisonWindowAnswer } from "@/lib/http/replay-answer";
import { ComparisonDocumentQuery, PAIRS_DEFAULT } from "@/lib/server/replays/replay-documents";

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
 *
 * `?from=&limit=` (either): the pairs at positions [from, from + limit) only (limit 100 unless given, at most
 * 1,000), from the comparison stored for the replay, with `window: { from, limit, total, nextFrom }` after the
 * document's other keys; `nextFrom` is null after the last window.
 */
export const GET = route<{ id: string }, typeof ComparisonDocumentQuery>(
  { accept: ["api_key"], query: ComparisonDocumentQuery },
  async ({ query: { inputs, from, limit }, prisma, params, principal }) => {
    const where = `GET /api/v1/replays/${params.id}/comparison`;
    if (from === undefined && limit === undefined)
      return comparisonAnswer(principal, prisma, params.id, { inputs, where });
    return comparisonWindowAnswer(principal, prisma, params.id, {
      inputs,
      where,
      from: from ?? 0,
      limit: limit ?? PAIRS_DEFAULT,
    });
  },
);
