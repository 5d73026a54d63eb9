"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { ClusterFixInput, startClusterFix } from "@/lib/server/clusters/cluster-fixes";
import { renameFailureCluster, RenameClusterInput } from "@/lib/server/clusters/clusters";

/** Names a failure cluster (blank: named after its signature again); the name stays as sessions arrive. */
export const renameClusterAction = validatedAction(RenameClusterInput, async (principal, input, prisma) => {
  const cluster = await renameFailureCluster(principal, input, prisma);
  revalidatePath(`/failures/${cluster.id}`);
  return { id: cluster.id, label: cluster.label };
});

/** Tries a fix on a cluster: the policy run as an experiment over its members (and a control sample). */
export const startClusterFixAction = validatedAction(ClusterFixInput, async (principal, input, prisma) => {
  const fix = await startClusterFix(principal, input, prisma);
  revalidatePath(`/failures/${input.clusterId}`);
  return { experimentId: fix.experimentId, members: fix.members, control: fix.control };
});
