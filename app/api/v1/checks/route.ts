import { apiRoute, readJson } from "@/lib/http/api";
import { createCheck, CreateCheckInput, listChecks } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";

/** `{ name, definition }` → a saved outcome check: `201 { check }`; 409 when the name is taken. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const input = await readJson(request, CreateCheckInput);
  return Response.json({ check: await createCheck(principal, input, prisma) }, { status: 201 });
});

/** The saved outcome checks, by name: `{ checks }`. */
export const GET = apiRoute(async ({ prisma, principal }) => {
  return Response.json({ checks: await listChecks(principal, {}, prisma) });
});
