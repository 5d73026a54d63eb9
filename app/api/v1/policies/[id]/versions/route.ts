import { z } from "zod";
import { addPolicyVersion, withTransaction } from "@/lib/db/policies";
import { apiRoute, ApiError, readJson } from "@/lib/http/api";
import { checkedDocument, PolicyDocumentInput } from "../../shared";

export const dynamic = "force-dynamic";

const Body = z.strictObject({ policy: PolicyDocumentInput, note: z.string().max(2000).optional() });

/** Adds a version to a policy (validated for its agent); an unchanged document creates none (200). */
export const POST = apiRoute<{ id: string }>("policies.write", async ({ request, prisma, params, principal }) => {
  const body = await readJson(request, Body);
  const existing = await prisma.policy.findUnique({ where: { id: params.id }, select: { id: true, agentId: true } });
  if (!existing) throw new ApiError(404, "not_found", `No policy with id "${params.id}".`);
  const { policy } = await checkedDocument(prisma, body.policy, existing.agentId);
  const saved = await withTransaction(prisma, (tx) => addPolicyVersion(tx, existing.id, policy, { note: body.note, createdBy: principal.name }));
  return Response.json(saved, { status: saved.created ? 201 : 200 });
});
