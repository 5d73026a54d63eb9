/** Who may act on an agent-driven replay's agent endpoints: its own token, nobody else. */
import { AppError } from "@/lib/errors";
import type { Principal } from "../principal";

/** Refuses anything but the token of this very replay (the routes accept no other credential either). */
export function agentOnly(principal: Principal, replayId: string): void {
  if (principal.kind !== "replay_token" || principal.replayId !== replayId)
    throw new AppError("forbidden", "Only the agent token of this replay may call its agent endpoints.");
}

/** What an agent-driven replay's answer gives its agent: the token (shown once) and the endpoints' URLs. */
export interface AgentAccess {
  token: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  toolCallsUrl: string;
  mcpUrl: string;
  finishUrl: string;
}

/** The agent endpoints of a replay under a public origin (no trailing slash). */
export function agentAccess(origin: string, replayId: string, token: string): AgentAccess {
  const root = `${origin.replace(/\/$/, "")}/api/v1/replays/${encodeURIComponent(replayId)}/agent`;
  return {
    token,
    openaiBaseUrl: `${root}/openai`,
    anthropicBaseUrl: `${root}/anthropic`,
    toolCallsUrl: `${root}/tool-calls`,
    mcpUrl: `${root}/mcp`,
    finishUrl: `${root}/finish`,
  };
}
