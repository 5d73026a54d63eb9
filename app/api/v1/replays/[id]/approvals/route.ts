import { z } from "zod";
import { loadReplayView } from "@/lib/db/replays";
import { env } from "@/lib/env";
import { ApiError, apiRoute, readJson } from "@/lib/http/api";
import { presentReplay } from "@/lib/replays/present";
import { decideApproval } from "@/lib/replays/service";
import { enqueue } from "@/lib/jobs/runtime";

export const dynamic = "force-dynamic";

/** `{ decision: "approved" | "denied", note? }` for the live call the branch waits on; `{ replay }`; 409 when none waits. */
export const POST = apiRoute<{ id: string }>(async ({ request, prisma, params }) => {
  const body = await readJson(request, z.unknown());
  await decideApproval(prisma, params.id, body, env().BRANCHPOINT_USER, enqueue);
  const view = await loadReplayView(prisma, params.id);
  if (!view) throw new ApiError(404, "replay_not_found", `No replay with id "${params.id}".`);
  return Response.json({ replay: presentReplay(view) });
});
