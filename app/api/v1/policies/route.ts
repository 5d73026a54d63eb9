import { apiRoute, readJson } from "@/lib/http/api";
import { SavePolicyByNameInput, savePolicyByName } from "@/lib/server/policies/policies";

export const dynamic = "force-dynamic";

/**
 * A new version of the policy named `name` (for the agent, when given),
 * creating the policy on first use. The same document always has the same
 * hash, and posting it again creates no version (200 instead of 201).
 */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const saved = await savePolicyByName(principal, await readJson(request, SavePolicyByNameInput), prisma);
  return Response.json(saved, { status: saved.created ? 201 : 200 });
});
