import { AGENT_TOKEN } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { FinishBody, finishAgentReplay } from "@/lib/server/agent/agent-finish";

export const dynamic = "force-dynamic";

/** `{ finalOutput }` or `{ error: { type?, message } }`: the agent is done; the replay ends and is compared. */
export const POST = route({ ...AGENT_TOKEN, body: FinishBody }, async ({ params, principal, prisma, body }) =>
  Response.json(await finishAgentReplay(principal, params.id, body, prisma)),
);
