"use server";

import { revalidatePath } from "next/cache";
import { validatedAction } from "@/lib/http/action";
import { z } from "zod";
import { ClusterFixInput, startClusterFix } from "@/lib/server/clusters/cluster-fixes";
import {
  cancelFixSearch,
  listFixSearches,
  startFixSearchOfPolicy,
  StartFixSearchOfPolicy,
} from "@/lib/server/clusters/cluster-fix-search";
import { suggestClusterLabel, SuggestClusterLabelInput } from "@/lib/server/clusters/cluster-label";
import {
  mergeFailureClusters,
  MergeClustersInput,
  renameFailureCluster,
  RenameClusterInput,
  splitFailureCluster,
  SplitClusterInput,
} from "@/lib/server/clusters/clusters";

/** Names a failure cluster (blank: named after its signature again); the name stays as sessions arrive. */
export const renameClusterAction = validatedAction(RenameClusterInput, async (principal, input, prisma) => {
  const cluster = await renameFailureCluster(principal, input, prisma);
  revalidatePath(`/failures/${cluster.id}`);
  return { id: cluster.id, label: cluster.label };
});

/**
 * Merges clusters of one agent into the target; the merged ones are gone (their pages with them). Nothing is
 * revalidated: that would render the page the merge was made from, now not found, in place of the target the
 * form goes to (a dynamic page, read fresh).
 */
export const mergeClustersAction = validatedAction(MergeClustersInput, async (principal, input, prisma) => {
  const cluster = await mergeFailureClusters(principal, input, prisma);
  return { id: cluster.id, label: cluster.label, size: cluster.size };
});

/** Splits chosen members off into a new cluster; answers both clusters' ids and sizes. */
export const splitClusterAction = validatedAction(SplitClusterInput, async (principal, input, prisma) => {
  const { cluster, from } = await splitFailureCluster(principal, input, prisma);
  revalidatePath(`/failures/${from.id}`);
  return {
    cluster: { id: cluster.id, label: cluster.label, size: cluster.size },
    from: { id: from.id, size: from.size },
  };
});

/** Asks a model endpoint for a label (nothing stored; accepting it is a rename). */
export const suggestClusterLabelAction = validatedAction(SuggestClusterLabelInput, (principal, input, prisma) =>
  suggestClusterLabel(principal, input, prisma),
);

/** Tries a fix on a cluster: the policy run as an experiment over its members (and a control sample). */
export const startClusterFixAction = validatedAction(ClusterFixInput, async (principal, input, prisma) => {
  const fix = await startClusterFix(principal, input, prisma);
  revalidatePath(`/failures/${input.clusterId}`);
  return { experimentId: fix.experimentId, members: fix.members, control: fix.control };
});

/** Starts a search for the smallest of a saved policy's changes that fixes the cluster (a job; the page polls it). */
export const startFixSearchAction = validatedAction(StartFixSearchOfPolicy, async (principal, input, prisma) => {
  const search = await startFixSearchOfPolicy(principal, input, prisma);
  revalidatePath(`/failures/${input.clusterId}`);
  return search;
});

const ClusterRef = z.strictObject({ clusterId: z.string().min(1).max(64) });

/** The cluster's smallest-fix searches, newest first (polled by the page while one runs). */
export const fixSearchesAction = validatedAction(ClusterRef, async (principal, input, prisma) =>
  listFixSearches(principal, input, prisma),
);

/** Stops a smallest-fix search before its next probe. */
export const cancelFixSearchAction = validatedAction(
  ClusterRef.extend({ searchId: z.string().min(1).max(64) }),
  async (principal, input, prisma) => {
    const search = await cancelFixSearch(principal, input, prisma);
    revalidatePath(`/failures/${input.clusterId}`);
    return search;
  },
);
