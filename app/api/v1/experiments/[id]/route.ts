import { route } from "@/lib/http/route";
import { presentExperiment } from "@/lib/http/present";
import { getExperiment } from "@/lib/server/experiments/experiments";

export const dynamic = "force-dynamic";

/** The experiment with its progress and one result per cohort session. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const experiment = await getExperiment(principal, { experimentId: params.id }, prisma);
  return Response.json({ experiment: presentExperiment(experiment) });
});
