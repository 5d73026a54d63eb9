import { route } from "@/lib/http/route";
import { FixSearchBody, searchSmallestFix } from "@/lib/server/clusters/cluster-fix-search";

export const dynamic = "force-dynamic";

/**
 * `{ policy, base?, sample?, seed? }`: the smallest set of the policy's changes from `base` (the recording when
 * left out) that fixes as large a share of the cluster's members as the whole policy does, searched by delta
 * debugging; each probe runs as a fix of the cluster (listed by `GET …/fixes`). Answers when the search ends:
 * `200 { changes, result: { kind, kept?, changes? }, share, probes: [{ kept, fixed, of, fixes, experimentId }] }`.
 * Keep `sample` small: each probe replays the sample once.
 */
export const POST = route<{ id: string }, undefined, typeof FixSearchBody>(
  { accept: ["api_key"], authorize: "experiments.run", body: FixSearchBody },
  async ({ prisma, params, principal, body }) => {
    return Response.json(await searchSmallestFix(principal, { ...body, clusterId: params.id }, prisma));
  },
);
