import { ApiError, apiRoute } from "@/lib/http/api";
import { loadExperiment, presentExperiment } from "@/lib/replays/experiments";

export const dynamic = "force-dynamic";

/** The experiment with its progress and one result per cohort session. */
export const GET = apiRoute<{ id: string }>("experiments.read", async ({ prisma, params }) => {
  const experiment = await loadExperiment(prisma, params.id);
  if (!experiment) throw new ApiError(404, "experiment_not_found", `No experiment with id "${params.id}".`);
  return Response.json({ experiment: presentExperiment(experiment) });
});
