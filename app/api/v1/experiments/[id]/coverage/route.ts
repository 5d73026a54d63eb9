import { route } from "@/lib/http/route";
import { getExperimentCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** Policy coverage summed over the experiment's replays; unused recordings name their session and replay. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const coverage = await getExperimentCoverage(principal, { experimentId: params.id }, prisma);
  return Response.json({ coverage });
});
