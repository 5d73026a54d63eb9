import { route } from "@/lib/http/route";
import { ClusterFixBody, listClusterFixes, startClusterFix } from "@/lib/server/clusters/cluster-fixes";

export const dynamic = "force-dynamic";

/**
 * `{ policyId | policy | preset, model?, liveModel?, modelEndpoint?, edit? | edits?, sample?, controlSample?,
 * seed?, name? }`: the policy (with its edits of tools' results, composed where several apply) run as an
 * experiment over the cluster's members (or a sample) and a control sample of passing sessions →
 * `202 { fix: { id, experimentId, members, control, judge, warnings } }`; poll `GET` (or the experiment).
 */
export const POST = route<{ id: string }, undefined, typeof ClusterFixBody>(
  { accept: ["api_key"], authorize: "experiments.run", body: ClusterFixBody },
  async ({ prisma, params, principal, body }) => {
    const fix = await startClusterFix(principal, { clusterId: params.id, body }, prisma);
    return Response.json({ fix, experimentId: fix.experimentId }, { status: 202 });
  },
);

/** The fixes tried on the cluster, newest first: `{ fixes: [{ id, experimentId, policy, judge, figures }] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json(await listClusterFixes(principal, { clusterId: params.id }, prisma));
});
