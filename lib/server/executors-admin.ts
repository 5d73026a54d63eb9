/**
 * Executors as an admin manages them, from the settings page or from scripts
 * (`/api/v1/executors/*`): model endpoints, tool endpoints and the host
 * allow-list. Every change is written to the audit log with its author.
 */
import { z } from "zod";
import { recordAudit, type Db } from "@/lib/db";
import { AppError, invalidInput } from "@/lib/errors";
import {
  addAllowedHost,
  ModelEndpointInput,
  saveModelEndpoint,
  saveToolEndpoint,
  ToolEndpointInput,
} from "@/lib/replays/executor-settings";
import { authorize } from "./authz";
import type { Principal } from "./principal";

export type ExecutorKind = "model" | "tool" | "host";

/** The API's tool shape names the tool `tool`; the settings form names it `toolName`. */
export const ToolEndpointApiInput = z
  .object({
    tool: z.string().trim().min(1, "Name the tool.").max(200),
    url: z.string(),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    readOnly: z.boolean({ error: "say whether the tool only reads (true) or may change things (false)" }),
  })
  .strict();
export const AllowedHostApiInput = z.object({ host: z.string().min(1).max(300) }).strict();
export const ModelEndpointApiInput = ModelEndpointInput.strict();

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput("The request body is not valid.", parsed.error);
  return parsed.data;
}

const modelView = (m: { id: string; name: string; baseUrl: string; model: string; apiKeyEnv: string | null; createdAt: Date }) => ({
  id: m.id,
  name: m.name,
  baseUrl: m.baseUrl,
  model: m.model,
  apiKeyEnv: m.apiKeyEnv,
  createdAt: m.createdAt.toISOString(),
});
const toolView = (t: { id: string; toolName: string; url: string; timeoutMs: number; readOnly: boolean; createdAt: Date }) => ({
  id: t.id,
  tool: t.toolName,
  url: t.url,
  timeoutMs: t.timeoutMs,
  readOnly: t.readOnly,
  createdAt: t.createdAt.toISOString(),
});
const hostView = (h: { id: string; host: string; createdAt: Date }) => ({ id: h.id, host: h.host, createdAt: h.createdAt.toISOString() });

async function audit(prisma: Db, principal: Principal, kind: ExecutorKind, change: "saved" | "removed", target: string, detail: object) {
  await recordAudit(prisma, {
    actorId: principal.userId,
    actorName: principal.name,
    action: kind === "host" ? "allowed_host.changed" : "executor.changed",
    target,
    detail: { kind, change, ...detail },
  });
}

export async function listModels(prisma: Db, principal: Principal) {
  authorize(principal, "executors.read");
  return (await prisma.modelEndpoint.findMany({ orderBy: { name: "asc" } })).map(modelView);
}
export async function listTools(prisma: Db, principal: Principal) {
  authorize(principal, "executors.read");
  return (await prisma.toolEndpoint.findMany({ orderBy: { toolName: "asc" } })).map(toolView);
}
export async function listHosts(prisma: Db, principal: Principal) {
  authorize(principal, "executors.read");
  return (await prisma.allowedHost.findMany({ orderBy: { host: "asc" } })).map(hostView);
}

export async function putModel(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "executors.manage");
  const data = parse(ModelEndpointApiInput, input);
  const { id } = await saveModelEndpoint(prisma, data);
  const row = await prisma.modelEndpoint.findUniqueOrThrow({ where: { id } });
  await audit(prisma, principal, "model", "saved", row.name, { baseUrl: row.baseUrl, model: row.model });
  return modelView(row);
}

export async function putTool(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "executors.manage");
  const api = parse(ToolEndpointApiInput, input);
  const data = parse(ToolEndpointInput, { toolName: api.tool, url: api.url, timeoutMs: api.timeoutMs, readOnly: api.readOnly });
  const { id } = await saveToolEndpoint(prisma, data);
  const row = await prisma.toolEndpoint.findUniqueOrThrow({ where: { id } });
  await audit(prisma, principal, "tool", "saved", row.toolName, { url: row.url, readOnly: row.readOnly });
  return toolView(row);
}

/** For the settings form, whose tool field is `toolName`. */
export async function putToolFromForm(prisma: Db, principal: Principal, input: unknown) {
  const form = parse(ToolEndpointInput, input);
  return putTool(prisma, principal, { tool: form.toolName, url: form.url, timeoutMs: form.timeoutMs, readOnly: form.readOnly });
}

export async function putHost(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "executors.manage");
  const data = parse(AllowedHostApiInput, input);
  const { id } = await addAllowedHost(prisma, data.host);
  const row = await prisma.allowedHost.findUniqueOrThrow({ where: { id } });
  await audit(prisma, principal, "host", "saved", row.host, {});
  return hostView(row);
}

export async function removeExecutor(prisma: Db, principal: Principal, kind: ExecutorKind, id: string) {
  authorize(principal, "executors.manage");
  const missing = () => new AppError("not_found", `No ${kind === "host" ? "allowed host" : `${kind} endpoint`} with id "${id}".`);
  if (kind === "model") {
    const row = await prisma.modelEndpoint.findUnique({ where: { id } });
    if (!row) throw missing();
    await prisma.modelEndpoint.delete({ where: { id } });
    await audit(prisma, principal, kind, "removed", row.name, {});
    return { model: modelView(row) };
  }
  if (kind === "tool") {
    const row = await prisma.toolEndpoint.findUnique({ where: { id } });
    if (!row) throw missing();
    await prisma.toolEndpoint.delete({ where: { id } });
    await audit(prisma, principal, kind, "removed", row.toolName, {});
    return { tool: toolView(row) };
  }
  const row = await prisma.allowedHost.findUnique({ where: { id } });
  if (!row) throw missing();
  await prisma.allowedHost.delete({ where: { id } });
  await audit(prisma, principal, kind, "removed", row.host, {});
  return { host: hostView(row) };
}
