import { route } from "@/lib/http/route";
import { BackfillBody, backfillStatus, startBackfill } from "@/lib/server/checks/online";

export const dynamic = "force-dynamic";

/**
 * Judges the agent's older sessions (`?agentId=|agentName=`, or every agent the check is attached to) in a job:
 * `202 { backfills: [{ agentId, agentName, status, total, done, started }] }`.
 */
export const POST = route<{ id: string }, typeof BackfillBody>(
  { accept: ["api_key"], authorize: "checks.write", query: BackfillBody },
  async ({ params, query, prisma, principal }) => {
    return Response.json(await startBackfill(principal, { ...query, checkId: params.id }, prisma), { status: 202 });
  },
);

/** Each attached agent's backfill: `{ backfills: [{ agentId, agentName, status, total, done, error, … }] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ params, prisma, principal }) => {
  return Response.json(await backfillStatus(principal, { checkId: params.id }, prisma));
});
