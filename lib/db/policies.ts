import { Adapter, Capability, Policy, policyHash, SideEffect, type KnownTool } from "@/lib/replay";
import type { Db, DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { toSessionEvent, withFullInputs } from "./session-reads";

/**
 * Saved policies and their immutable versions, so a replay's evidence always
 * names the exact document it ran under. A version is a
 * new row with the content hash of its document; saving a document whose
 * hash equals the latest version's creates nothing. Every write that touches
 * several rows runs in one transaction.
 */

type AnyClient = Db | DbClient;

// ---------------------------------------------------------------------------
// The agent a policy is validated for

export type AgentContext = {
  id: string;
  name: string;
  adapter: Adapter;
  /** Capabilities every version of the agent declares (fail closed: a policy must run on each of them). */
  capabilities: Capability[];
  versionCount: number;
  tools: KnownTool[];
};

/** The id of the agent with this name, or null. */
export async function agentIdOfName(client: AnyClient, name: string): Promise<string | null> {
  const agent = await client.agent.findUnique({ where: { name }, select: { id: true } });
  return agent?.id ?? null;
}

export async function agentContext(client: AnyClient, agentId: string): Promise<AgentContext | null> {
  const agent = await client.agent.findUnique({
    where: { id: agentId },
    include: {
      versions: { select: { capabilities: true } },
      tools: { select: { name: true, sideEffect: true }, orderBy: { name: "asc" } },
    },
  });
  if (!agent) return null;
  const adapter = Adapter.safeParse(agent.adapter);
  const sets = agent.versions.map((v) => new Set(v.capabilities));
  const capabilities = Capability.options.filter((c) => sets.length > 0 && sets.every((s) => s.has(c)));
  return {
    id: agent.id,
    name: agent.name,
    adapter: adapter.success ? adapter.data : "generic",
    capabilities,
    versionCount: agent.versions.length,
    tools: agent.tools.map((t) => ({ name: t.name, sideEffect: SideEffect.catch("unknown").parse(t.sideEffect) })),
  };
}

// ---------------------------------------------------------------------------
// Reads

export const policyListSelect = {
  id: true,
  name: true,
  latestVersion: true,
  createdAt: true,
  updatedAt: true,
  agent: { select: { id: true, name: true, adapter: true } },
  versions: { orderBy: { version: "desc" }, take: 1, select: { version: true, hash: true, createdAt: true } },
} satisfies Prisma.PolicySelect;
export type PolicyListItem = Prisma.PolicyGetPayload<{ select: typeof policyListSelect }>;

export async function listPolicies(client: AnyClient): Promise<PolicyListItem[]> {
  return client.policy.findMany({
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    select: policyListSelect,
    take: 500,
  });
}

export async function getPolicy(client: AnyClient, id: string) {
  return client.policy.findUnique({
    where: { id },
    include: {
      agent: { select: { id: true, name: true, adapter: true } },
      versions: { orderBy: { version: "desc" } },
    },
  });
}
export type PolicyWithVersions = NonNullable<Awaited<ReturnType<typeof getPolicy>>>;

/** A policy version's document, with the policy's name and agent. */
export async function getPolicyVersionById(client: AnyClient, id: string) {
  return client.policyVersion.findUnique({
    where: { id },
    select: { id: true, document: true, policy: { select: { agentId: true, name: true } } },
  });
}

/** A policy's id and agent, or null. */
export async function policyOwner(client: AnyClient, id: string) {
  return client.policy.findUnique({ where: { id }, select: { id: true, agentId: true } });
}

export async function listAgents(client: AnyClient) {
  return client.agent.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true, adapter: true } });
}

// ---------------------------------------------------------------------------
// Writes

export type SavedVersion = { id: string; versionId: string; version: number; hash: string; created: boolean };

/**
 * Adds a version to a policy unless the document equals the latest one (same
 * hash): then nothing is written and the latest version comes back with
 * `created: false`. The version number comes from bumping `latestVersion`
 * in the same transaction, so concurrent saves get distinct numbers.
 */
export async function addPolicyVersion(
  tx: DbClient,
  policyId: string,
  document: Policy,
  opts: { note?: string | undefined; createdBy?: string | null | undefined } = {},
): Promise<SavedVersion> {
  const policy = Policy.parse(document);
  const hash = policyHash(policy);
  {
    const latest = await tx.policyVersion.findFirst({
      where: { policyId },
      orderBy: { version: "desc" },
      select: { id: true, version: true, hash: true },
    });
    if (latest && latest.hash === hash)
      return { id: policyId, versionId: latest.id, version: latest.version, hash, created: false };
    const bumped = await tx.policy.update({
      where: { id: policyId },
      data: { latestVersion: { increment: 1 } },
      select: { latestVersion: true },
    });
    const row = await tx.policyVersion.create({
      data: {
        policyId,
        version: bumped.latestVersion,
        document: policy as Prisma.InputJsonValue,
        hash,
        note: opts.note?.trim() || null,
        createdBy: opts.createdBy ?? null,
      },
      select: { id: true, version: true },
    });
    return { id: policyId, versionId: row.id, version: row.version, hash, created: true };
  }
}

/** Creates a policy, with its first version when a document is given. Call inside a transaction. */
export async function createPolicy(
  tx: DbClient,
  input: {
    name: string;
    agentId?: string | null | undefined;
    document?: Policy | undefined;
    note?: string | undefined;
    createdBy?: string | null | undefined;
  },
): Promise<{ id: string; version: SavedVersion | null }> {
  const row = await tx.policy.create({
    data: { name: input.name.trim(), agentId: input.agentId ?? null },
    select: { id: true },
  });
  const version = input.document
    ? await addPolicyVersion(tx, row.id, input.document, { note: input.note, createdBy: input.createdBy })
    : null;
  return { id: row.id, version };
}

/**
 * The policy named `name` for the agent (or without one), getting a new
 * version of `document`; created when there is none. For automation: posting
 * the same document twice creates one version.
 */
export async function savePolicyByName(
  tx: DbClient,
  input: {
    name: string;
    agentId: string | null;
    document: Policy;
    note?: string | undefined;
    createdBy?: string | null | undefined;
  },
): Promise<SavedVersion> {
  const existing = await tx.policy.findFirst({
    where: { name: input.name.trim(), agentId: input.agentId },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
  if (existing)
    return addPolicyVersion(tx, existing.id, input.document, { note: input.note, createdBy: input.createdBy });
  const created = await createPolicy(tx, input);
  return created.version!;
}

// ---------------------------------------------------------------------------
// Tools of an agent, for the editor's tool table

export type AgentTool = { name: string; sideEffect: SideEffect; calls: number; declared: boolean };

/** Every tool of the agent (declared or called), with how often its sessions called it. */
export async function agentTools(client: AnyClient, agentId: string): Promise<AgentTool[]> {
  const [tools, counts] = await Promise.all([
    client.tool.findMany({ where: { agentId }, select: { name: true, sideEffect: true } }),
    client.event.groupBy({
      by: ["name"],
      where: { kind: "tool_call", session: { agentId, isReplay: false } },
      _count: { _all: true },
    }),
  ]);
  const byName = new Map<string, AgentTool>();
  for (const t of tools)
    byName.set(t.name, {
      name: t.name,
      sideEffect: SideEffect.catch("unknown").parse(t.sideEffect),
      calls: 0,
      declared: true,
    });
  for (const c of counts) {
    const known = byName.get(c.name);
    if (known) known.calls = c._count._all;
    else byName.set(c.name, { name: c.name, sideEffect: "unknown", calls: c._count._all, declared: false });
  }
  return [...byName.values()].sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
}

/** Declares a tool's side-effect class (creating the tool row for a tool not seen yet). */
export async function setToolSideEffect(client: AnyClient, agentId: string, name: string, sideEffect: SideEffect) {
  return client.tool.upsert({
    where: { agentId_name: { agentId, name } },
    create: { agentId, name, sideEffect },
    update: { sideEffect },
    select: { name: true, sideEffect: true },
  });
}

// ---------------------------------------------------------------------------
// Try a rule

export type RecordedCall = {
  sessionId: string;
  sessionTitle: string;
  seq: number;
  tool: string;
  occurrence: number | null;
  status: string;
  argsPreview: string;
};

/** Recorded tool calls of the agent's sessions, newest sessions first, to try a rule on. */
export async function recordedCalls(client: AnyClient, agentId: string, limit = 300): Promise<RecordedCall[]> {
  const rows = await client.event.findMany({
    where: { kind: "tool_call", session: { agentId, isReplay: false } },
    orderBy: [{ session: { createdAt: "desc" } }, { sessionId: "asc" }, { seq: "asc" }],
    take: limit,
    select: {
      sessionId: true,
      seq: true,
      name: true,
      occurrence: true,
      status: true,
      input: true,
      session: { select: { title: true, externalId: true } },
    },
  });
  return rows.map((r) => {
    const args = (r.input as { args?: unknown } | null)?.args;
    const text = JSON.stringify(args ?? null) ?? "";
    return {
      sessionId: r.sessionId,
      sessionTitle: r.session.title ?? r.session.externalId ?? r.sessionId,
      seq: r.seq,
      tool: r.name,
      occurrence: r.occurrence,
      status: r.status,
      argsPreview: text.length > 120 ? `${text.slice(0, 119)}…` : text,
    };
  });
}

/** A session of the agent with its events in order, or null when it is not one of the agent's. */
export async function agentSessionEvents(client: AnyClient, agentId: string, sessionId: string) {
  const session = await client.session.findFirst({
    where: { id: sessionId, agentId },
    include: { events: { orderBy: { seq: "asc" } } },
  });
  return session
    ? { agentVersionId: session.agentVersionId, events: withFullInputs(session.events).map(toSessionEvent) }
    : null;
}

/** Policy versions usable for an agent's sessions (the agent's policies and those without an agent), by name then newest version. */
export async function policyVersionsForAgent(client: AnyClient, agentId: string) {
  return client.policyVersion.findMany({
    where: { policy: { OR: [{ agentId: null }, { agentId }] } },
    orderBy: [{ policy: { name: "asc" } }, { version: "desc" }],
    select: { id: true, version: true, hash: true, document: true, policy: { select: { name: true } } },
    take: 200,
  });
}
