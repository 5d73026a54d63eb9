import { z } from "zod";
import type { DbClient } from "@/lib/db/client";
import { ApiError } from "@/lib/http/errors";
import { normalizeHost, parseHttpUrl } from "@/lib/executors/live";

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .refine((v) => parseHttpUrl(v) !== null, `${what} must be an http:// or https:// URL.`);

/**
 * The key's variable must look like a key (…_API_KEY, …_TOKEN, …_KEY) and may
 * not be one of Branchpoint's own settings: otherwise anyone at the dashboard
 * could have the server send e.g. DATABASE_URL or BRANCHPOINT_API_KEY as a
 * bearer token to a host they allowed.
 */
export function keyEnvNameProblem(name: string): string | null {
  if (!/^[A-Z_][A-Z0-9_]*$/.test(name)) return "The NAME of an environment variable (A–Z, 0–9, _), not the key itself.";
  if (name.startsWith("BRANCHPOINT_") || ["DATABASE_URL", "TEST_POSTGRES_URL"].includes(name)) {
    return `${name} is one of Branchpoint's own settings; name the variable that holds the model provider's key.`;
  }
  if (!/(_API_KEY|_KEY|_TOKEN)$/.test(name))
    return "Only variables named like a key (…_API_KEY, …_KEY, …_TOKEN) can be sent to a model endpoint.";
  return null;
}

export const ModelEndpointInput = z.object({
  name: z.string().trim().min(1, "Give the endpoint a name.").max(100),
  baseUrl: httpUrl("The base URL"),
  model: z.string().trim().min(1, "Name the model (e.g. gpt-4.1)."),
  apiKeyEnv: z
    .string()
    .trim()
    .superRefine((name, ctx) => {
      const problem = name === "" ? null : keyEnvNameProblem(name);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
});
export const ToolEndpointInput = z.object({
  toolName: z.string().trim().min(1, "Name the tool."),
  url: httpUrl("The URL"),
  timeoutMs: z.coerce.number().int().min(100, "At least 100 ms.").max(600_000, "At most 600000 ms."),
  readOnly: z.boolean(),
});
export const AllowedHostInput = z.object({ host: z.string() });

export async function executorSettings(client: DbClient) {
  const [models, tools, hosts] = await Promise.all([
    client.modelEndpoint.findMany({ orderBy: { name: "asc" } }),
    client.toolEndpoint.findMany({ orderBy: { toolName: "asc" } }),
    client.allowedHost.findMany({ orderBy: { host: "asc" } }),
  ]);
  const allowed = new Set(hosts.map((h) => h.host));
  const hostOk = (raw: string) => {
    const url = parseHttpUrl(raw);
    return url ? allowed.has(url.host) || allowed.has(url.hostname) : false;
  };
  return {
    // Only whether the key variable is set leaves the server; never its value.
    models: models.map((m) => ({
      id: m.id,
      name: m.name,
      baseUrl: m.baseUrl,
      model: m.model,
      apiKeyEnv: m.apiKeyEnv,
      keySet: m.apiKeyEnv ? Boolean(process.env[m.apiKeyEnv]) : null,
      hostAllowed: hostOk(m.baseUrl),
    })),
    tools: tools.map((t) => ({
      id: t.id,
      toolName: t.toolName,
      url: t.url,
      timeoutMs: t.timeoutMs,
      readOnly: t.readOnly,
      hostAllowed: hostOk(t.url),
    })),
    hosts: hosts.map((h) => ({ id: h.id, host: h.host })),
  };
}

export async function saveModelEndpoint(client: DbClient, input: z.infer<typeof ModelEndpointInput>) {
  const data = { baseUrl: input.baseUrl, model: input.model, apiKeyEnv: input.apiKeyEnv || null };
  return client.modelEndpoint.upsert({
    where: { name: input.name },
    create: { name: input.name, ...data },
    update: data,
    select: { id: true },
  });
}

export async function saveToolEndpoint(client: DbClient, input: z.infer<typeof ToolEndpointInput>) {
  const data = { url: input.url, timeoutMs: input.timeoutMs, readOnly: input.readOnly };
  return client.toolEndpoint.upsert({
    where: { toolName: input.toolName },
    create: { toolName: input.toolName, ...data },
    update: data,
    select: { id: true },
  });
}

export async function addAllowedHost(client: DbClient, raw: string) {
  const host = normalizeHost(raw);
  if (!host)
    throw new ApiError(
      400,
      "invalid_host",
      `"${raw}" is not a host: write a host name or host:port, such as api.example.com or 127.0.0.1:8080.`,
      [{ path: "host", message: "not a host" }],
    );
  return client.allowedHost.upsert({ where: { host }, create: { host }, update: {}, select: { id: true, host: true } });
}

export async function removeExecutorSetting(client: DbClient, kind: "model" | "tool" | "host", id: string) {
  if (kind === "model") await client.modelEndpoint.deleteMany({ where: { id } });
  else if (kind === "tool") await client.toolEndpoint.deleteMany({ where: { id } });
  else await client.allowedHost.deleteMany({ where: { id } });
}
