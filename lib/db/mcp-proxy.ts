/** What an agent-driven replay's MCP proxy reads: the replay's policy and recording, the recording's tool definitions. */
import type { DbClient } from "./client";

/** The replay's policy snapshot and recorded session, or null when there is no such replay. */
export function mcpReplayRow(client: DbClient, replayId: string) {
  return client.replay.findUnique({
    where: { id: replayId },
    select: { policySnapshot: true, sessionId: true, session: { select: { agentId: true } } },
  });
}

/**
 * Where the recording's tool definitions are: the `tools` each recorded model call declared (in its provider's
 * shape), the tools the session called, and what the agent's tool list knows of those (name, description, schema).
 */
export async function recordedToolSources(client: DbClient, sessionId: string, agentId: string) {
  const [models, calls] = await Promise.all([
    client.event.findMany({
      where: { sessionId, kind: "model_call" },
      select: { input: true },
      orderBy: { seq: "asc" },
    }),
    client.event.findMany({
      where: { sessionId, kind: "tool_call" },
      select: { name: true },
      distinct: ["name"],
    }),
  ]);
  const called = calls.map((c) => c.name);
  const known = await client.tool.findMany({
    where: { agentId, name: { in: called } },
    select: { name: true, description: true, schema: true },
  });
  const declared: unknown[] = [];
  for (const m of models) {
    const tools = (m.input as { tools?: unknown } | null)?.tools;
    if (Array.isArray(tools)) declared.push(...(tools as unknown[]));
  }
  return { declared, called, known };
}
