import { z } from "zod";
import { savePolicyByName, withTransaction } from "@/lib/db/policies";
import { apiRoute, readJson } from "@/lib/http/api";
import { agentIdByName, checkedDocument, PolicyDocumentInput } from "./shared";

export const dynamic = "force-dynamic";

const Body = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    agentId: z.string().min(1).max(64).optional(),
    /** The agent by name, as sessions and the session list show it: for scripts that know the name only. */
    agentName: z.string().trim().min(1).max(200).optional(),
    policy: PolicyDocumentInput,
    note: z.string().max(2000).optional(),
  })
  .refine((b) => b.agentId === undefined || b.agentName === undefined, {
    path: ["agentName"],
    message: "give agentId or agentName, not both",
  });

/**
 * A new version of the policy named `name` (for the agent, when given by id
 * or name), creating the policy on first use. The same document always has
 * the same hash, and posting it again creates no version (200 instead of 201).
 */
export const POST = apiRoute(async ({ request, prisma }) => {
  const body = await readJson(request, Body);
  const agentId = body.agentName === undefined ? (body.agentId ?? null) : await agentIdByName(prisma, body.agentName);
  const { policy, warnings } = await checkedDocument(prisma, body.policy, agentId);
  const saved = await withTransaction(prisma, (tx) =>
    savePolicyByName(tx, { name: body.name, agentId, document: policy, note: body.note }),
  );
  return Response.json({ ...saved, warnings }, { status: saved.created ? 201 : 200 });
});
