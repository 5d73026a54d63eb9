import { getPolicy } from "@/lib/db/policies";
import { apiRoute, ApiError } from "@/lib/http/api";
import { policyBody } from "../shared";

export const dynamic = "force-dynamic";

/** The policy with its versions, newest first. */
export const GET = apiRoute<{ id: string }>("policies.read", async ({ prisma, params }) => {
  const policy = await getPolicy(prisma, params.id);
  if (!policy) throw new ApiError(404, "not_found", `No policy with id "${params.id}".`);
  return Response.json({ policy: policyBody(policy) });
});
