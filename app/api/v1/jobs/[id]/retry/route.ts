import { route } from "@/lib/http/route";
import { retryReplay } from "@/lib/server/jobs/jobs";

export const dynamic = "force-dynamic";

/** Admin: runs a failed job (a replay) again from its branch log → `{ job: { id, status: "queued" } }`; 409 unless failed. */
export const POST = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const { replayId } = await retryReplay(principal, { replayId: params.id }, prisma);
  return Response.json({ job: { id: replayId, kind: "replay", status: "queued" } });
});
