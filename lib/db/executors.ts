/** Executor settings (model and tool endpoints, the host allow-list): the rows the settings page and the live executors read. */
import type { DbClient } from "./client";

export async function listExecutorRows(client: DbClient) {
  const [models, tools, hosts] = await Promise.all([
    client.modelEndpoint.findMany({ orderBy: { name: "asc" } }),
    client.toolEndpoint.findMany({ orderBy: { toolName: "asc" } }),
    client.allowedHost.findMany({ orderBy: { host: "asc" } }),
  ]);
  return { models, tools, hosts };
}

export async function upsertModelEndpoint(
  client: DbClient,
  input: { name: string; baseUrl: string; model: string; apiKeyEnv: string | null },
) {
  const data = { baseUrl: input.baseUrl, model: input.model, apiKeyEnv: input.apiKeyEnv };
  return client.modelEndpoint.upsert({
    where: { name: input.name },
    create: { name: input.name, ...data },
    update: data,
    select: { id: true },
  });
}

export async function upsertToolEndpoint(
  client: DbClient,
  input: { toolName: string; url: string; timeoutMs: number; readOnly: boolean },
) {
  const data = { url: input.url, timeoutMs: input.timeoutMs, readOnly: input.readOnly };
  return client.toolEndpoint.upsert({
    where: { toolName: input.toolName },
    create: { toolName: input.toolName, ...data },
    update: data,
    select: { id: true },
  });
}

export async function upsertAllowedHost(client: DbClient, host: string) {
  return client.allowedHost.upsert({ where: { host }, create: { host }, update: {}, select: { id: true, host: true } });
}

/**
 * Removes one setting; removing one that is gone already is fine. Answers
 * what it removed by name (a tool, a model endpoint's name, a host), or null
 * when there was nothing to remove, so the audit log can name it.
 */
export async function deleteExecutorSetting(
  client: DbClient,
  kind: "model" | "tool" | "host" | "mcp",
  id: string,
): Promise<string | null> {
  if (kind === "mcp") {
    const row = await client.mcpServer.findUnique({ where: { id }, select: { name: true } });
    await client.mcpServer.deleteMany({ where: { id } });
    return row?.name ?? null;
  }
  if (kind === "model") {
    const row = await client.modelEndpoint.findUnique({ where: { id }, select: { name: true } });
    await client.modelEndpoint.deleteMany({ where: { id } });
    return row?.name ?? null;
  }
  if (kind === "tool") {
    const row = await client.toolEndpoint.findUnique({ where: { id }, select: { toolName: true } });
    await client.toolEndpoint.deleteMany({ where: { id } });
    return row?.toolName ?? null;
  }
  const row = await client.allowedHost.findUnique({ where: { id }, select: { host: true } });
  await client.allowedHost.deleteMany({ where: { id } });
  return row?.host ?? null;
}

export async function allowedHosts(client: DbClient): Promise<Set<string>> {
  const rows = await client.allowedHost.findMany({ select: { host: true } });
  return new Set(rows.map((r) => r.host.toLowerCase()));
}

export async function toolEndpointFor(client: DbClient, toolName: string) {
  return client.toolEndpoint.findUnique({ where: { toolName } });
}

/** The endpoint named (by name or model) or, failing that, the first one configured. */
/** The endpoint a model call goes to: the pinned one (by id; null when it was removed), else the one named like `wanted`, else the first. */
export async function modelEndpointFor(client: DbClient, wanted: string | undefined, pinnedId?: string | null) {
  if (pinnedId) return client.modelEndpoint.findUnique({ where: { id: pinnedId } });
  if (wanted) {
    const byName = await client.modelEndpoint.findFirst({ where: { OR: [{ name: wanted }, { model: wanted }] } });
    if (byName) return byName;
  }
  return client.modelEndpoint.findFirst({ orderBy: { createdAt: "asc" } });
}

export async function hasModelEndpoint(client: DbClient): Promise<boolean> {
  return (await client.modelEndpoint.count()) > 0;
}

export function findModelEndpoint(client: DbClient, where: { id: string } | { name: string }) {
  return client.modelEndpoint.findUnique({ where });
}
export function findToolEndpoint(client: DbClient, where: { id: string } | { toolName: string }) {
  return client.toolEndpoint.findUnique({ where });
}
export function findAllowedHost(client: DbClient, where: { id: string } | { host: string }) {
  return client.allowedHost.findUnique({ where });
}

/** Registered upstream MCP servers, by name. */
export function listMcpServers(client: DbClient) {
  return client.mcpServer.findMany({ orderBy: { name: "asc" } });
}
export function upsertMcpServer(client: DbClient, input: { name: string; url: string }) {
  return client.mcpServer.upsert({
    where: { name: input.name },
    create: input,
    update: { url: input.url },
    select: { id: true },
  });
}
export function findMcpServer(client: DbClient, where: { id: string } | { name: string }) {
  return client.mcpServer.findUnique({ where });
}
