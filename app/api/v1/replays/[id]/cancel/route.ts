import { route } from "@/lib/http/route";
import { replayAnswer } from "@/lib/http/replay-answer";
import { cancelReplay } from "@/lib/server/jobs/jobs";

export const dynamic = "force-dynamic";

/**
 * Cancels a replay → `{ replay, outcome }`: `cancelled` (it was queued or waiting, and is cancelled now) or
 * `stopping` (it is running; it stops at its next step boundary, keeping its steps so far). 409 when it has
 * already finished.
 */
export const POST = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const { outcome } = await cancelReplay(principal, { replayId: params.id }, prisma);
  return replayAnswer(principal, prisma, params.id, {
    where: `POST /api/v1/replays/${params.id}/cancel`,
    after: { outcome },
  });
});
