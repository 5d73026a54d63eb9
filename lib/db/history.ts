/** What the engine reads from the database while it replays: tool side-effect classes and recorded history for wider scopes. */
import type { HistoryLookup, KnownTool, SideEffect } from "@/lib/replay";
import type { DbClient } from "./client";

/** Side-effect classes for the engine: the agent's declared tools, with endpoints marked read-only counting as `read` when undeclared. */
export async function knownTools(client: DbClient, agentId: string): Promise<KnownTool[]> {
  const [tools, endpoints] = await Promise.all([
    client.tool.findMany({ where: { agentId }, select: { name: true, sideEffect: true } }),
    client.toolEndpoint.findMany({ where: { readOnly: true }, select: { toolName: true } }),
  ]);
  const readOnlyEndpoints = new Set(endpoints.map((e) => e.toolName));
  return tools.map((t) => {
    const declared = t.sideEffect as SideEffect;
    const sideEffect: SideEffect = declared === "unknown" && readOnlyEndpoints.has(t.name) ? "read" : declared;
    return { name: t.name, sideEffect };
  });
}

/** History for `agent` (the agent's sessions that are not replays) and `cohort_version` (the experiment's agent version) scopes. */
export function historyLookupFor(
  client: DbClient,
  scope: { agentId: string; cohortAgentVersionId: string | null },
): HistoryLookup {
  return async (query) => {
    const session =
      query.scope === "agent"
        ? { agentId: scope.agentId, isReplay: false }
        : scope.cohortAgentVersionId
          ? { agentVersionId: scope.cohortAgentVersionId }
          : null;
    if (!session) return null;
    const event = await client.event.findFirst({
      where: { kind: "tool_call", name: query.tool, cacheKey: query.cacheKey, status: "completed", session },
      orderBy: [{ session: { createdAt: "desc" } }, { seq: "desc" }],
      select: { sessionId: true, seq: true, output: true },
    });
    return event
      ? { sessionId: event.sessionId, seq: event.seq, output: event.output ?? null, status: "completed" }
      : null;
  };
}
