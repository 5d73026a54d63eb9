import { AGENT_TOKEN } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { agentToolCall, ToolCallRequestBody } from "@/lib/server/agent/agent-tools";

export const dynamic = "force-dynamic";

/**
 * `{ tool, args, callId? }` → `{ action: "return", source, output, error }` | `{ action: "execute", callId }` |
 * `{ action: "fail", code, message }` | `202 { action: "wait", retryAfterMs }` (ask again after it).
 */
export const POST = route(
  { ...AGENT_TOKEN, body: ToolCallRequestBody },
  async ({ params, principal, prisma, body }) => {
    const answer = await agentToolCall(principal, params.id, body, prisma);
    return Response.json(answer, answer.action === "wait" ? { status: 202, headers: { "retry-after": "1" } } : {});
  },
);
