import { route } from "@/lib/http/route";
import { replayAnswer } from "@/lib/http/replay-answer";
import { ApprovalInput } from "@/lib/server/replays/replay-inputs";
import { decideApproval } from "@/lib/server/replays/replay-resume";

export const dynamic = "force-dynamic";

/** `{ decision: "approved" | "denied", note? }` for the live call the branch waits on; `{ replay }`; 409 when none waits. */
export const POST = route<{ id: string }, undefined, typeof ApprovalInput>(
  { accept: ["api_key"], body: ApprovalInput },
  async ({ body, prisma, params, principal }) => {
    await decideApproval(principal, { ...body, replayId: params.id }, prisma);
    return replayAnswer(principal, prisma, params.id, { where: `POST /api/v1/replays/${params.id}/approvals` });
  },
);
