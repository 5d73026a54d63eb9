import { route } from "@/lib/http/route";
import { getOnlineCheck } from "@/lib/server/checks/online";

export const dynamic = "force-dynamic";

/**
 * A saved check and where it runs online: `{ check, kind, day, attachments: [{ agentId, agentName, fromVersion,
 * dailyBudgetUsd, judgeCallUsd, verdicts: { pass, fail, check_error, over_budget }, backfill, today }] }`.
 */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ params, prisma, principal }) => {
  return Response.json(await getOnlineCheck(principal, { checkId: params.id }, prisma));
});
