import { route } from "@/lib/http/route";
import { getFixSearch } from "@/lib/server/clusters/cluster-fix-search";

export const dynamic = "force-dynamic";

/** One smallest-fix search: `{ search: { id, status, changes, progress, probes, result, error } }`. */
export const GET = route<{ id: string; searchId: string }>(
  { accept: ["api_key"] },
  async ({ prisma, params, principal }) => {
    return Response.json({
      search: await getFixSearch(principal, { clusterId: params.id, searchId: params.searchId }, prisma),
    });
  },
);
