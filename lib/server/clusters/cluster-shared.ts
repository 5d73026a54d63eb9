/** What the cluster and regression operations share: naming an agent, and a cluster as shown. */
import { z } from "zod";
import { defaultLabel } from "@/lib/clusters/signature";
import type { Db } from "@/lib/db";
import { findAgent, type ClusterRow } from "@/lib/db/clusters";
import { AppError, notFound } from "@/lib/errors";

const Id = z.string().min(1).max(64);

/** An agent named by id or by name (exactly one). */
export const AgentRef = z
  .object({ agentId: Id.optional(), agentName: z.string().min(1).max(200).optional() })
  .refine((v) => (v.agentId === undefined) !== (v.agentName === undefined), {
    message: "Name the agent by agentId or by agentName (one of them).",
    path: ["agentId"],
  });
export type AgentRef = z.infer<typeof AgentRef>;

/** A cluster as the API and the pages show it. */
export function presentCluster(row: ClusterRow) {
  const signature = { check: row.check, step: row.step, errorType: row.errorType, message: row.message };
  return {
    id: row.id,
    agentId: row.agentId,
    label: row.label ?? defaultLabel(signature),
    named: row.label !== null,
    signature: { ...signature, hash: row.signatureHash },
    size: row.size,
    firstSeen: row.firstSeen?.toISOString() ?? null,
    lastSeen: row.lastSeen?.toISOString() ?? null,
  };
}
export type PresentedCluster = ReturnType<typeof presentCluster>;

/** The agent named (callers authorize first). */
export async function resolveAgent(prisma: Db, ref: AgentRef) {
  const agent = await findAgent(prisma, ref);
  if (!agent)
    throw ref.agentId !== undefined
      ? notFound("agent", ref.agentId, "agentId")
      : new AppError("not_found", `No agent named "${ref.agentName ?? ""}".`, [
          { path: "agentName", message: "unknown agent" },
        ]);
  return agent;
}
