import { apiRoute, readJson } from "@/lib/http/api";
import { listModels, putModel } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/models: `{ "models": [...] }`. */
export const GET = apiRoute(async ({ prisma, principal }) =>
  Response.json({ models: await listModels(principal, prisma) }),
);

/** POST /api/v1/executors/models: creates or replaces one; `201 { "model" }`. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const body = await readJson(request, z.unknown());
  return Response.json({ model: await putModel(principal, body, prisma) }, { status: 201 });
});
