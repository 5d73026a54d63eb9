import { apiRoute, readJson } from "@/lib/http/api";
import { replayAnswer } from "@/lib/http/replay-answer";
import { ApprovalInput } from "@/lib/server/replays/replay-inputs";
import { decideApproval } from "@/lib/server/replays/replay-resume";

export const dynamic = "force-dynamic";

/** `{ decision: "approved" | "denied", note? }` for the live call the branch waits on; `{ replay }`; 409 when none waits. */
export const POST = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const body = await readJson(request, ApprovalInput);
  await decideApproval(principal, { ...body, replayId: params.id }, prisma);
  return replayAnswer(principal, prisma, params.id, { where: `POST /api/v1/replays/${params.id}/approvals` });
});
