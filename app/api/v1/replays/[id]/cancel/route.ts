import { apiRoute } from "@/lib/http/api";
import { presentReplay } from "@/lib/http/present";
import { cancelReplay } from "@/lib/server/jobs";
import { getReplay } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

/**
 * Cancels a replay → `{ replay, outcome }`: `cancelled` (it was queued or waiting, and is cancelled now) or
 * `stopping` (it is running; it stops at its next step boundary, keeping its steps so far). 409 when it has
 * already finished.
 */
export const POST = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  const { outcome } = await cancelReplay(principal, { replayId: params.id }, prisma);
  const view = await getReplay(principal, { replayId: params.id }, prisma);
  return Response.json({ replay: presentReplay(view), outcome });
});
