import { AGENT_TOKEN } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { mcpMethodNotAllowed, serveMcp } from "@/lib/http/mcp-server";
import { mcpCallTool, mcpListTools } from "@/lib/server/mcp/mcp-proxy";

export const dynamic = "force-dynamic";

/**
 * The replay's MCP server (streamable HTTP, stateless, JSON answers), for this replay's agent token only:
 * `tools/list` and `tools/call` answered under the branch's policy (lib/server/mcp/mcp-proxy.ts).
 */
export const POST = route(AGENT_TOKEN, async ({ request, params, principal, prisma }) =>
  serveMcp(request, {
    listTools: () => mcpListTools(principal, params.id, prisma),
    callTool: (call) => mcpCallTool(principal, params.id, call, prisma, { signal: request.signal }),
  }),
);

export const GET = route(AGENT_TOKEN, () => Promise.resolve(mcpMethodNotAllowed()));
export const DELETE = route(AGENT_TOKEN, () => Promise.resolve(mcpMethodNotAllowed()));
