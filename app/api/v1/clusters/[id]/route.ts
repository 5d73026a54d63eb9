import { z } from "zod";
import { route } from "@/lib/http/route";
import { getFailureCluster, renameFailureCluster } from "@/lib/server/clusters/clusters";

export const dynamic = "force-dynamic";

/** One cluster: `{ cluster: { id, label, signature, size, firstSeen, lastSeen, days, versions } }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ cluster: await getFailureCluster(principal, { clusterId: params.id }, prisma) });
});

const RenameBody = z.object({ label: z.string().max(200).nullable() }).strict();

/** `{ label }` renames the cluster (`null` or blank: named after its signature again) → `{ cluster }`. */
export const PATCH = route<{ id: string }, undefined, typeof RenameBody>(
  { accept: ["api_key"], authorize: "clusters.write", body: RenameBody },
  async ({ prisma, params, principal, body }) => {
    const cluster = await renameFailureCluster(
      principal,
      { clusterId: params.id, label: body.label === null || body.label.trim() === "" ? null : body.label.trim() },
      prisma,
    );
    return Response.json({ cluster });
  },
);
