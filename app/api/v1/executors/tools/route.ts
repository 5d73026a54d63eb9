import { apiRoute, readJson } from "@/lib/http/api";
import { listTools, putTool } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/tools: `{ "tools": [...] }`. */
export const GET = apiRoute(async ({ prisma, principal }) =>
  Response.json({ tools: await listTools(principal, prisma) }),
);

/** POST /api/v1/executors/tools: creates or replaces one; `201 { "tool" }`. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const body = await readJson(request, z.unknown());
  return Response.json({ tool: await putTool(principal, body, prisma) }, { status: 201 });
});
