/**
 * Executors for scripts (`/api/v1/executors/*`): the same operations as the
 * settings page (lib/server/executors.ts: admin only, audited), in the API's
 * shapes: `{ tool, url, timeoutMs?, readOnly }` for tools, answers `{ model }`,
 * `{ tool }`, `{ host }` or the list.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { findAllowedHost, findModelEndpoint, findToolEndpoint, listExecutorRows } from "@/lib/db/executors";
import { AppError, invalidInput } from "@/lib/errors";
import { authorize } from "../authz";
import {
  addAllowedHost,
  AllowedHostInput,
  ModelEndpointInput,
  removeExecutorSetting,
  saveModelEndpoint,
  saveToolEndpoint,
  ToolEndpointInput,
} from "./executors";
import type { Principal } from "../principal";

export type ExecutorKind = "model" | "tool" | "host";

export const ToolEndpointApiInput = z
  .object({
    tool: z.string(),
    url: z.string(),
    timeoutMs: z.number().int().default(10_000),
    readOnly: z.boolean({ error: "say whether the tool only reads (true) or may change things (false)" }),
  })
  .strict();

async function found<T>(row: Promise<T | null>): Promise<T> {
  const value = await row;
  if (!value) throw new AppError("conflict", "The executor changed while it was saved; send the request again.");
  return value;
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput("The request body is not valid.", parsed.error);
  return parsed.data;
}

type ModelRow = { id: string; name: string; baseUrl: string; model: string; apiKeyEnv: string | null; createdAt: Date };
type ToolRow = { id: string; toolName: string; url: string; timeoutMs: number; readOnly: boolean; createdAt: Date };
type HostRow = { id: string; host: string; createdAt: Date };

const modelView = (m: ModelRow) => ({
  id: m.id,
  name: m.name,
  baseUrl: m.baseUrl,
  model: m.model,
  apiKeyEnv: m.apiKeyEnv,
  createdAt: m.createdAt.toISOString(),
});
const toolView = (t: ToolRow) => ({
  id: t.id,
  tool: t.toolName,
  url: t.url,
  timeoutMs: t.timeoutMs,
  readOnly: t.readOnly,
  createdAt: t.createdAt.toISOString(),
});
const hostView = (h: HostRow) => ({ id: h.id, host: h.host, createdAt: h.createdAt.toISOString() });

export async function listModels(principal: Principal, prisma: Db) {
  authorize(principal, "executors.read");
  return (await listExecutorRows(prisma)).models.map(modelView);
}
export async function listTools(principal: Principal, prisma: Db) {
  authorize(principal, "executors.read");
  return (await listExecutorRows(prisma)).tools.map(toolView);
}
export async function listHosts(principal: Principal, prisma: Db) {
  authorize(principal, "executors.read");
  return (await listExecutorRows(prisma)).hosts.map(hostView);
}

export async function putModel(principal: Principal, input: unknown, prisma: Db) {
  authorize(principal, "executors.manage");
  const data = parse(ModelEndpointInput.strict(), input);
  await saveModelEndpoint(principal, data, prisma);
  return modelView(await found(findModelEndpoint(prisma, { name: data.name })));
}

export async function putTool(principal: Principal, input: unknown, prisma: Db) {
  authorize(principal, "executors.manage");
  const api = parse(ToolEndpointApiInput, input);
  const data = parse(ToolEndpointInput, {
    toolName: api.tool,
    url: api.url,
    timeoutMs: api.timeoutMs,
    readOnly: api.readOnly,
  });
  await saveToolEndpoint(principal, data, prisma);
  return toolView(await found(findToolEndpoint(prisma, { toolName: data.toolName })));
}

export async function putHost(principal: Principal, input: unknown, prisma: Db) {
  authorize(principal, "executors.manage");
  const data = parse(AllowedHostInput.strict(), input);
  const saved = await addAllowedHost(principal, data, prisma);
  return hostView(await found(findAllowedHost(prisma, { id: saved.id })));
}

export async function removeExecutor(principal: Principal, kind: ExecutorKind, id: string, prisma: Db) {
  authorize(principal, "executors.manage");
  const missing = () =>
    new AppError("not_found", `No ${kind === "host" ? "allowed host" : `${kind} endpoint`} with id "${id}".`);
  if (kind === "model") {
    const row = await findModelEndpoint(prisma, { id });
    if (!row) throw missing();
    await removeExecutorSetting(principal, { kind, id }, prisma);
    return { model: modelView(row) };
  }
  if (kind === "tool") {
    const row = await findToolEndpoint(prisma, { id });
    if (!row) throw missing();
    await removeExecutorSetting(principal, { kind, id }, prisma);
    return { tool: toolView(row) };
  }
  const row = await findAllowedHost(prisma, { id });
  if (!row) throw missing();
  await removeExecutorSetting(principal, { kind, id }, prisma);
  return { host: hostView(row) };
}
