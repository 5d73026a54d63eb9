/** What the engine reads from the database while it replays: tool side-effect classes and recorded history for wider scopes. */
import type { EventStatus, HistoryLookup, KnownTool, SideEffect } from "@/lib/replay";
import type { DbClient } from "./client";

/** Side-effect classes for the engine: the agent's declared tools, with endpoints marked read-only counting as `read` when undeclared. */
export async function knownTools(client: DbClient, agentId: string): Promise<KnownTool[]> {
  const [tools, endpoints] = await Promise.all([
    client.tool.findMany({ where: { agentId }, select: { name: true, sideEffect: true } }),
    client.toolEndpoint.findMany({ where: { readOnly: true }, select: { toolName: true } }),
  ]);
  const readOnlyEndpoints = new Set(endpoints.map((e) => e.toolName));
  return tools.map((t) => knownTool(t.name, t.sideEffect, readOnlyEndpoints.has(t.name)));
}

/** A tool as the engine classes it: as declared, or `read` when undeclared and its endpoint is marked read-only. */
export function knownTool(name: string, declared: string, readOnlyEndpoint: boolean): KnownTool {
  const sideEffect = declared as SideEffect;
  return { name, sideEffect: sideEffect === "unknown" && readOnlyEndpoint ? "read" : sideEffect };
}

/** How many of the newest identical recorded calls a history lookup hands the engine to choose from. */
const HISTORY_CANDIDATES = 200;

/**
 * History candidates for `agent` (the agent's sessions) and `cohort_version`
 * (the experiment's agent version) scopes: the newest recorded calls with the
 * cache key, whatever their status. The engine decides what counts (completed
 * only, no replay sessions, cohort membership, newest first).
 */
export function historyLookupFor(
  client: DbClient,
  scope: {
    agentId: string;
    cohortAgentVersionId: string | null;
    /** An experiment run over a chosen subset: `cohort_version` answers only from its member sessions. */
    cohortExperimentId?: string | null;
  },
): HistoryLookup {
  return async (query) => {
    const session =
      query.scope === "agent"
        ? { agentId: scope.agentId }
        : scope.cohortAgentVersionId
          ? {
              agentVersionId: scope.cohortAgentVersionId,
              ...(scope.cohortExperimentId ? { replays: { some: { experimentId: scope.cohortExperimentId } } } : {}),
            }
          : null;
    if (!session) return [];
    const events = await client.event.findMany({
      where: { kind: "tool_call", name: query.tool, cacheKey: query.cacheKey, session },
      orderBy: [{ session: { createdAt: "desc" } }, { seq: "desc" }],
      take: HISTORY_CANDIDATES,
      select: {
        sessionId: true,
        seq: true,
        output: true,
        status: true,
        session: { select: { isReplay: true, agentVersionId: true, createdAt: true } },
      },
    });
    return events.map((e) => ({
      sessionId: e.sessionId,
      seq: e.seq,
      output: e.output ?? null,
      status: e.status as EventStatus,
      isReplay: e.session.isReplay,
      agentVersionId: e.session.agentVersionId,
      recordedAt: e.session.createdAt.toISOString(),
    }));
  };
}
