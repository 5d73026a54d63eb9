"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { renameFailureCluster, RenameClusterInput } from "@/lib/server/clusters/clusters";

/** Names a failure cluster (blank: named after its signature again); the name stays as sessions arrive. */
export const renameClusterAction = validatedAction(RenameClusterInput, async (principal, input, prisma) => {
  const cluster = await renameFailureCluster(principal, input, prisma);
  revalidatePath(`/failures/${cluster.id}`);
  return { id: cluster.id, label: cluster.label };
});
