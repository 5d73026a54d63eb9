import { route } from "@/lib/http/route";
import { cancelFixSearch } from "@/lib/server/clusters/cluster-fix-search";

export const dynamic = "force-dynamic";

/** Stops a smallest-fix search before its next probe (a queued one at once) → `{ search }`; an ended one is 409. */
export const POST = route<{ id: string; searchId: string }>(
  { accept: ["api_key"], authorize: "experiments.run" },
  async ({ prisma, params, principal }) => {
    return Response.json({
      search: await cancelFixSearch(principal, { clusterId: params.id, searchId: params.searchId }, prisma),
    });
  },
);
