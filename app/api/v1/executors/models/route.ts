import { route } from "@/lib/http/route";
import { listModels, putModel } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/models: `{ "models": [...] }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ models: await listModels(principal, prisma) }),
);

/** POST /api/v1/executors/models: creates or replaces one; `201 { "model" }`. */
export const POST = route({ accept: ["api_key"], body: z.unknown() }, async ({ body, prisma, principal }) =>
  Response.json({ model: await putModel(principal, body, prisma) }, { status: 201 }),
);
