import { route } from "@/lib/http/route";
import { SavePolicyByNameInput, savePolicyByName } from "@/lib/server/policies/policies";

export const dynamic = "force-dynamic";

/**
 * A new version of the policy named `name` (for the agent, when given),
 * creating the policy on first use. The same document always has the same
 * hash, and posting it again creates no version (200 instead of 201).
 */
export const POST = route({ accept: ["api_key"], body: SavePolicyByNameInput }, async ({ body, prisma, principal }) => {
  const saved = await savePolicyByName(principal, body, prisma);
  return Response.json(saved, { status: saved.created ? 201 : 200 });
});
