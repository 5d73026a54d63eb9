import { apiRoute } from "@/lib/http/api";
import { presentComparison } from "@/lib/http/present";
import { replayCounterfactual } from "@/lib/server/counterfactual";
import { getReplay } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

/** The aligned comparison of the branch with its base, with `firstDivergence`, metrics and the evidence. */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  const view = await getReplay(principal, { replayId: params.id }, prisma);
  const counterfactual = await replayCounterfactual(principal, { replayId: params.id }, prisma);
  return Response.json({ comparison: { ...presentComparison(view), ...counterfactual } });
});
