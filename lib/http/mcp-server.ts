/**
 * Branchpoint as an MCP server over streamable HTTP, for one request (stateless mode: no session id, a fresh
 * server per request, JSON answers instead of an SSE stream). The protocol (initialize, malformed JSON-RPC,
 * unknown methods, parameter shapes) is the SDK's; `tools/list` and `tools/call` go to the proxy's operations,
 * and their refusals become JSON-RPC errors whose message says what to do and whose `data.code` is ours.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { McpRefusal } from "@/lib/server/mcp/mcp-proxy";
import { toAppError } from "./api";

export interface McpHandlers {
  listTools: () => Promise<Tool[]>;
  callTool: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<CallToolResult>;
}

const LooseCallTool = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });

/**
 * A JSON-RPC error as the SDK sends it (its `code`, `message` and `data`); not an McpError, whose message
 * carries an "MCP error …" prefix the client would add a second time.
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: { code: string },
  ) {
    super(message);
  }
}

function rpcError(error: unknown): RpcError {
  if (error instanceof McpError) return new RpcError(error.code, error.message, { code: "invalid_input" });
  if (error instanceof McpRefusal) return new RpcError(error.rpcCode, error.message, { code: error.code });
  const app = error instanceof AppError ? error : toAppError(error, "the MCP proxy");
  const rpc = app.code === "invalid_input" ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
  return new RpcError(rpc, app.message, { code: app.code });
}

const guarded =
  <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await work(...args);
    } catch (error) {
      throw rpcError(error);
    }
  };

/** Answers one POST of the MCP streamable HTTP transport. */
export async function serveMcp(request: Request, handlers: McpHandlers): Promise<Response> {
  const server = new Server(
    { name: "branchpoint-replay", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "Tools of a Branchpoint replay: each call is answered under the replay's policy (recorded, fixture, static or live).",
    },
  );
  server.setRequestHandler(
    ListToolsRequestSchema,
    guarded(async () => ({ tools: await handlers.listTools() })),
  );
  // Registered with a loose shape: the SDK then checks the call itself and answers a malformed one with
  // "invalid params" (-32602) naming the field, where the strict schema would answer an internal error.
  server.setRequestHandler(
    LooseCallTool,
    guarded(async (req) => {
      const { params } = CallToolRequestSchema.parse(req);
      return handlers.callTool({ name: params.name, ...(params.arguments ? { arguments: params.arguments } : {}) });
    }),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/** GET (a server-to-client stream) and DELETE (ending a session) mean nothing in stateless mode. */
export function mcpMethodNotAllowed(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: {
        code: ErrorCode.ConnectionClosed,
        message: "Method not allowed: this MCP endpoint is stateless; send JSON-RPC requests with POST.",
      },
      id: null,
    },
    { status: 405, headers: { allow: "POST" } },
  );
}
