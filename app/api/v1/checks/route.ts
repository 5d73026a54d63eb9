import { route } from "@/lib/http/route";
import { createCheck, CreateCheckInput, listChecks } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";

/** `{ name, definition }` → a saved outcome check: `201 { check }`; 409 when the name is taken. */
export const POST = route({ accept: ["api_key"], body: CreateCheckInput }, async ({ body, prisma, principal }) => {
  return Response.json({ check: await createCheck(principal, body, prisma) }, { status: 201 });
});

/** The saved outcome checks, by name: `{ checks }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) => {
  return Response.json({ checks: await listChecks(principal, {}, prisma) });
});
