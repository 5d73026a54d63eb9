import { z } from "zod";
import { env } from "@/lib/env";
import { apiRoute, readJson } from "@/lib/http/api";
import { createCheck, listChecks } from "@/lib/server/counterfactual";

export const dynamic = "force-dynamic";

/** `{ name, definition }` → a saved outcome check: `201 { check }`; 409 when the name is taken. */
export const POST = apiRoute(async ({ request, prisma }) => {
  const body = await readJson(request, z.unknown());
  const check = await createCheck(prisma, body, env().BRANCHPOINT_USER);
  return Response.json({ check }, { status: 201 });
});

/** The saved outcome checks, by name: `{ checks }`. */
export const GET = apiRoute(async ({ prisma }) => {
  return Response.json({ checks: await listChecks(prisma) });
});
