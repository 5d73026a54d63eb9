import { route } from "@/lib/http/route";
import { FixSearchBody, listFixSearches, startFixSearch } from "@/lib/server/clusters/cluster-fix-search";

export const dynamic = "force-dynamic";

/**
 * `{ policy?, edits?, base?, sample?, seed? }`: searches for the smallest set of the fix's changes (the policy's
 * changes from `base`, the recording when left out, and each of its edits of tools' results; with edits alone,
 * `base` plus a subset of them) that fixes as large a share of the cluster's members as the whole policy does, by
 * delta debugging, as a job: answers at once `202 { searchId, search }`; poll
 * `GET …/fixes/smallest/:searchId` for its `status`, `progress`, `probes` and `result`. Each probe runs as a fix of
 * the cluster (listed by `GET …/fixes`). Keep `sample` small: each probe replays the sample once.
 */
export const POST = route<{ id: string }, undefined, typeof FixSearchBody>(
  { accept: ["api_key"], authorize: "experiments.run", body: FixSearchBody },
  async ({ prisma, params, principal, body }) => {
    const search = await startFixSearch(principal, { ...body, clusterId: params.id }, prisma);
    return Response.json({ searchId: search.id, search }, { status: 202 });
  },
);

/** The cluster's smallest-fix searches, newest first: `{ searches: [{ id, status, changes, progress, result }] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json(await listFixSearches(principal, { clusterId: params.id }, prisma));
});
