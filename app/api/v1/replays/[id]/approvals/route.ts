import { apiRoute, readJson } from "@/lib/http/api";
import { presentReplay } from "@/lib/http/present";
import { enqueue } from "@/lib/jobs/runtime";
import { ApprovalInput, decideApproval, getReplay } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

/** `{ decision: "approved" | "denied", note? }` for the live call the branch waits on; `{ replay }`; 409 when none waits. */
export const POST = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const body = await readJson(request, ApprovalInput);
  await decideApproval(principal, { ...body, replayId: params.id }, prisma, enqueue);
  const view = await getReplay(principal, { replayId: params.id }, prisma);
  return Response.json({ replay: presentReplay(view) });
});
