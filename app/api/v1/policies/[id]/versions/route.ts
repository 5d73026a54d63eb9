import { route } from "@/lib/http/route";
import { savePolicyVersion, SavePolicyVersionInput } from "@/lib/server/policies/policies";

export const dynamic = "force-dynamic";

const Body = SavePolicyVersionInput.omit({ policyId: true }).strict();

/** Adds a version to a policy (validated for its agent); an unchanged document creates none (200). */
export const POST = route<{ id: string }, undefined, typeof Body>(
  { accept: ["api_key"], body: Body },
  async ({ body, prisma, params, principal }) => {
    const saved = await savePolicyVersion(principal, { ...body, policyId: params.id }, prisma);
    return Response.json(saved, { status: saved.created ? 201 : 200 });
  },
);
