import { z } from "zod";
import { route } from "@/lib/http/route";
import { splitFailureCluster } from "@/lib/server/clusters/clusters";

export const dynamic = "force-dynamic";

const SplitBody = z
  .object({
    sessionIds: z.array(z.string().min(1).max(64)).min(1).max(1000),
    label: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

/**
 * `{ sessionIds, label? }`: those members split off into a new cluster that keeps them →
 * `201 { cluster, from }`; new sessions of the signature keep landing in the original.
 */
export const POST = route<{ id: string }, undefined, typeof SplitBody>(
  { accept: ["api_key"], authorize: "clusters.write", body: SplitBody },
  async ({ prisma, params, principal, body }) => {
    const result = await splitFailureCluster(principal, { clusterId: params.id, ...body }, prisma);
    return Response.json(result, { status: 201 });
  },
);
