import { z } from "zod";
import { route } from "@/lib/http/route";
import { listMcpExecutors, registerMcpExecutor } from "@/lib/server/executors/mcp-servers";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/mcp: `{ "servers": [{ id, name, url, hostAllowed, createdAt }] }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ servers: await listMcpExecutors(principal, prisma) }),
);

/** POST /api/v1/executors/mcp: `{ name, url }` registers (or re-points, by name) an upstream MCP server; `201 { "server" }`. */
export const POST = route({ accept: ["api_key"], body: z.unknown() }, async ({ body, prisma, principal }) =>
  Response.json({ server: await registerMcpExecutor(principal, body, prisma) }, { status: 201 }),
);
