import { z } from "zod";
import type { DbClient } from "@/lib/db";
import { validateInContext } from "@/components/policies/validation";
import {
  agentContext,
  agentIdOfName,
  invalidPolicyError,
  type AgentContext,
  type PolicyWithVersions,
} from "@/lib/db/policies";
import { ApiError } from "@/lib/http/api";
import type { Policy, PolicyIssue } from "@/lib/replay";

/** A policy as the API shows it: its versions newest first, each with its document and hash. */
export function policyBody(p: PolicyWithVersions) {
  return {
    id: p.id,
    name: p.name,
    agent: p.agent,
    latestVersion: p.latestVersion,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    versions: p.versions.map((v) => ({
      id: v.id,
      version: v.version,
      hash: v.hash,
      note: v.note,
      createdAt: v.createdAt,
      document: v.document,
    })),
  };
}

export const PolicyDocumentInput = z.unknown().refine((v) => v !== undefined, "Required");

/** The id of the agent named `name`; a 404 naming the field otherwise. */
export async function agentIdByName(client: DbClient, name: string): Promise<string> {
  const agent = await agentIdOfName(client, name);
  if (!agent)
    throw new ApiError(404, "agent_not_found", `No agent named "${name}".`, [
      { path: "agentName", message: "unknown agent" },
    ]);
  return agent;
}

/** The document checked where it will run; a 400 with each error's path otherwise. */
export async function checkedDocument(
  client: DbClient,
  document: unknown,
  agentId: string | null,
): Promise<{ policy: Policy; agent: AgentContext | null; warnings: PolicyIssue[] }> {
  let agent: AgentContext | null = null;
  if (agentId) {
    agent = await agentContext(client, agentId);
    if (!agent)
      throw new ApiError(404, "agent_not_found", `No agent with id "${agentId}".`, [
        { path: "agentId", message: "unknown agent" },
      ]);
  }
  const result = validateInContext(document, agent);
  if (!result.ok) throw invalidPolicyError(result.errors);
  return { policy: result.policy, agent, warnings: result.warnings };
}
