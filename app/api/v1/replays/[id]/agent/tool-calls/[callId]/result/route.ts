import { route } from "@/lib/http/route";
import { agentToolResult, ToolResultBody } from "@/lib/server/agent/agent-tools";

export const dynamic = "force-dynamic";

/** `{ output }` or `{ error: { type?, message } }` of a call the contract answered with `execute`. */
export const POST = route<{ id: string; callId: string }, undefined, typeof ToolResultBody>(
  { accept: ["replay_token"], replayId: (p) => p.id, body: ToolResultBody },
  async ({ params, principal, prisma, body }) =>
    Response.json(await agentToolResult(principal, params.id, params.callId, body, prisma)),
);
