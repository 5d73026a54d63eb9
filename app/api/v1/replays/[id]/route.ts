import { apiRoute } from "@/lib/http/api";
import { presentReplay } from "@/lib/http/present";
import { replayCounterfactual } from "@/lib/server/counterfactual";
import { getReplay } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  const view = await getReplay(principal, { replayId: params.id }, prisma);
  const counterfactual = await replayCounterfactual(principal, { replayId: params.id }, prisma);
  return Response.json({ replay: { ...presentReplay(view), ...counterfactual } });
});
