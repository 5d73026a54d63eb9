import { route } from "@/lib/http/route";
import { presentPolicy } from "@/lib/http/present";
import { getPolicy } from "@/lib/server/policies/policies";

export const dynamic = "force-dynamic";

/** The policy with its versions, newest first. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const policy = await getPolicy(principal, { policyId: params.id }, prisma);
  return Response.json({ policy: presentPolicy(policy) });
});
