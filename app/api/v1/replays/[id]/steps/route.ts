import { route } from "@/lib/http/route";
import { listReplaySteps, ReplayStepsInput } from "@/lib/server/replays/replay-pages";

export const dynamic = "force-dynamic";

const Query = ReplayStepsInput.omit({ replayId: true });

/**
 * A branch's steps a window at a time, as summaries (no inputs or outputs):
 * `{ steps, cursor, nextCursor }` for the steps from `cursor` (a step index,
 * default 0) up to `cursor + limit` (default 50, at most 500).
 */
export const GET = route<{ id: string }, typeof Query>(
  { accept: ["api_key"], query: Query },
  async ({ query, prisma, params, principal }) => {
    const page = await listReplaySteps(principal, { replayId: params.id, ...query }, prisma);
    return Response.json({ steps: page.steps, cursor: page.cursor, nextCursor: page.nextCursor });
  },
);
