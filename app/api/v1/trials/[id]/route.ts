import { apiRoute } from "@/lib/http/api";
import { trialSetView } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";

/** A trial set: each trial's outcome and first departure, the pass rate with its 95 % interval, the per-step strip. */
export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  return Response.json({ trialSet: await trialSetView(principal, { trialSetId: params.id }, prisma) });
});
