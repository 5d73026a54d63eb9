import type { z } from "zod";
import { apiRoute, readJson } from "@/lib/http/api";
import { savePolicyVersion, SavePolicyVersionInput } from "@/lib/server/policies/policies";

export const dynamic = "force-dynamic";

const Body = SavePolicyVersionInput.omit({ policyId: true }).strict();

/** Adds a version to a policy (validated for its agent); an unchanged document creates none (200). */
export const POST = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const body: z.infer<typeof Body> = await readJson(request, Body);
  const saved = await savePolicyVersion(principal, { ...body, policyId: params.id }, prisma);
  return Response.json(saved, { status: saved.created ? 201 : 200 });
});
