import { toSessionEvent, type SessionListItem, type SessionWithEvents } from "@/lib/db";

/** A session in a list, as the API shows it. */
export function presentListItem(s: SessionListItem) {
  return {
    id: s.id,
    title: s.title,
    externalId: s.externalId,
    format: s.format,
    status: s.status,
    agent: s.agent,
    agentVersion: s.agentVersion.version,
    agentVersionId: s.agentVersionId,
    startedAt: s.startedAt,
    durationMs: s.durationMs,
    eventCount: s.eventCount,
    modelCallCount: s.modelCallCount,
    toolCallCount: s.toolCallCount,
    errorCount: s.errorCount,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    costUsd: s.costUsd,
    toolNames: s.toolNames,
    createdAt: s.createdAt,
  };
}

/** One session with its events in order (DESIGN §2 event shape). */
export function presentSession(s: SessionWithEvents) {
  return {
    id: s.id,
    title: s.title,
    externalId: s.externalId,
    format: s.format,
    status: s.status,
    isReplay: s.isReplay,
    agent: { id: s.agent.id, name: s.agent.name, adapter: s.agent.adapter },
    agentVersion: { id: s.agentVersion.id, version: s.agentVersion.version, capabilities: s.agentVersion.capabilities },
    startedAt: s.startedAt,
    endedAt: s.endedAt,
    durationMs: s.durationMs,
    eventCount: s.eventCount,
    modelCallCount: s.modelCallCount,
    toolCallCount: s.toolCallCount,
    errorCount: s.errorCount,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    costUsd: s.costUsd,
    toolNames: s.toolNames,
    metadata: s.metadata,
    createdAt: s.createdAt,
    events: s.events.map(toSessionEvent),
  };
}
