import { route } from "@/lib/http/route";
import { ComparisonRowsInput, listComparisonRows } from "@/lib/server/replays/comparison-pages";

export const dynamic = "force-dynamic";

const Query = ComparisonRowsInput.omit({ replayId: true });

/**
 * The comparison's rows a window at a time: `{ rows, filter, cursor,
 * nextCursor, total }`, the rows `filter` shows (all, changes, changed,
 * inserted, removed, unreached; default all) from position `cursor` (default 0)
 * up to `cursor + limit` (default 100, at most 500); `total` is how many it
 * shows in all. A row is a pair's summary (type, kind, name, both seqs,
 * source, a preview); `GET /comparison` has the pairs whole.
 */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ query, prisma, params, principal }) => {
    const page = await listComparisonRows(principal, { replayId: params.id, ...query }, prisma);
    return Response.json(page);
  },
);
