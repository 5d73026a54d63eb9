import { apiRoute, readJson } from "@/lib/http/api";
import { listTools, putTool } from "@/lib/server/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/tools: `{ "tools": [...] }`. */
export const GET = apiRoute("executors.read", async ({ prisma, principal }) =>
  Response.json({ tools: await listTools(prisma, principal) }),
);

/** POST /api/v1/executors/tools: creates or replaces one; `201 { "tool" }`. */
export const POST = apiRoute("executors.manage", async ({ request, prisma, principal }) => {
  const body = await readJson(request, z.unknown());
  return Response.json({ tool: await putTool(prisma, principal, body) }, { status: 201 });
});
