import { loadReplayView } from "@/lib/db/replays";
import { ApiError, apiRoute } from "@/lib/http/api";
import { presentComparison } from "@/lib/replays/present";

export const dynamic = "force-dynamic";

/** The aligned comparison of the branch with its base, with `firstDivergence`, metrics and the evidence. */
export const GET = apiRoute<{ id: string }>("replays.read", async ({ prisma, params }) => {
  const view = await loadReplayView(prisma, params.id);
  if (!view) throw new ApiError(404, "replay_not_found", `No replay with id "${params.id}".`);
  return Response.json({ comparison: presentComparison(view) });
});
