import { route } from "@/lib/http/route";
import { getAgentOverview, OverviewQuery } from "@/lib/server/agents/overview";

export const dynamic = "force-dynamic";

/**
 * An agent's runs, failed runs, cost, duration p50/p95 and tokens per UTC day and version:
 * `{ agent, from, to, version, versions, days: [{ day, version, runs, failed, costUsd, p50Ms, p95Ms, inputTokens,
 * outputTokens }] }`. `from` and `to` are days (YYYY-MM-DD, both included; the last 30 days by default),
 * `version` keeps one version.
 */
export const GET = route<{ id: string }, typeof OverviewQuery>(
  { accept: ["api_key"], query: OverviewQuery },
  async ({ prisma, principal, params, query }) =>
    Response.json(await getAgentOverview(principal, { agentId: params.id, ...query }, prisma)),
);
