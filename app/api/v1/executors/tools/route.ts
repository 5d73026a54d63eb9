import { route } from "@/lib/http/route";
import { listTools, putTool } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/tools: `{ "tools": [...] }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ tools: await listTools(principal, prisma) }),
);

/** POST /api/v1/executors/tools: creates or replaces one; `201 { "tool" }`. */
export const POST = route({ accept: ["api_key"], body: z.unknown() }, async ({ body, prisma, principal }) =>
  Response.json({ tool: await putTool(principal, body, prisma) }, { status: 201 }),
);
