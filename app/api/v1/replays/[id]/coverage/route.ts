import { route } from "@/lib/http/route";
import { getReplayCoverage } from "@/lib/server/replays/coverage";

export const dynamic = "force-dynamic";

/** Policy coverage of the branch: per tool, calls by source, misses by reason, recordings never used. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  const coverage = await getReplayCoverage(principal, { replayId: params.id }, prisma);
  return Response.json({ coverage });
});
