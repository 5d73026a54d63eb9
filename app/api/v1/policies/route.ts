import { z } from "zod";
import { savePolicyByName, withTransaction } from "@/lib/db/policies";
import { apiRoute, readJson } from "@/lib/http/api";
import { checkedDocument, PolicyDocumentInput } from "./shared";

export const dynamic = "force-dynamic";

const Body = z.strictObject({
  name: z.string().trim().min(1).max(200),
  agentId: z.string().min(1).max(64).optional(),
  policy: PolicyDocumentInput,
  note: z.string().max(2000).optional(),
});

/**
 * A new version of the policy named `name` (for the agent, when given),
 * creating the policy on first use. The same document always has the same
 * hash, and posting it again creates no version (200 instead of 201).
 */
export const POST = apiRoute("policies.write", async ({ request, prisma, principal }) => {
  const body = await readJson(request, Body);
  const { policy } = await checkedDocument(prisma, body.policy, body.agentId ?? null);
  const saved = await withTransaction(prisma, (tx) =>
    savePolicyByName(tx, { name: body.name, agentId: body.agentId ?? null, document: policy, note: body.note, createdBy: principal.name }),
  );
  return Response.json(saved, { status: saved.created ? 201 : 200 });
});
