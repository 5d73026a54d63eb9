import { route } from "@/lib/http/route";
import { presentExperiment } from "@/lib/http/present";
import { getExperiment } from "@/lib/server/experiments/experiments";
import { cancelExperiment } from "@/lib/server/jobs/jobs";

export const dynamic = "force-dynamic";

/**
 * Cancels an experiment → `{ experiment, cancelled, stopping }`: its queued members are cancelled at once
 * (`cancelled` of them), its running ones stop at their next step boundary (`stopping`), evidence kept. 409
 * when it has already finished.
 */
export const POST = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const outcome = await cancelExperiment(principal, { experimentId: params.id }, prisma);
  const experiment = await getExperiment(principal, { experimentId: params.id }, prisma);
  return Response.json({ experiment: presentExperiment(experiment), ...outcome });
});
