import { route } from "@/lib/http/route";
import { trialSetView } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";

/** A trial set: each trial's outcome and first departure, the pass rate with its 95 % interval, the per-step strip. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ trialSet: await trialSetView(principal, { trialSetId: params.id }, prisma) });
});
