/** Executor settings: model and tool endpoints and the host allow-list live executors may reach. */
import { auditedChange, type AuditEntry } from "@/lib/db/audit";
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  deleteExecutorSetting,
  listExecutorRows,
  upsertAllowedHost,
  upsertModelEndpoint,
  upsertToolEndpoint,
} from "@/lib/db/executors";
import { AppError } from "@/lib/errors";
import { parseAllowListEntry } from "@/lib/executors/allow-list";
import { DEMO_MODEL, isDemoModel } from "@/lib/executors/demo-model";
import { keyEnvNameProblem } from "@/lib/executors/key-env";
import { parseHttpUrl, urlHostAllowed } from "@/lib/executors/live";
import { authorize } from "../authz";
import type { Principal } from "../principal";

const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .refine((v) => parseHttpUrl(v) !== null, `${what} must be an http:// or https:// URL.`);

export const ModelEndpointInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Give the endpoint a name.")
    .max(100)
    .refine((name) => !isDemoModel(name), `"${DEMO_MODEL.name}" is the built-in demo model's name; choose another.`),
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

export type ModelEndpointInput = z.infer<typeof ModelEndpointInput>;
export type ToolEndpointInput = z.infer<typeof ToolEndpointInput>;
export type AllowedHostInput = z.infer<typeof AllowedHostInput>;
export const RemoveExecutorSettingInput = z.object({
  kind: z.enum(["model", "tool", "host", "mcp"]),
  id: z.string().min(1),
});
export type RemoveExecutorSettingInput = z.infer<typeof RemoveExecutorSettingInput>;

/** Every setting, with whether each endpoint's host is allowed and whether its key variable is set (never its value). */
export async function executorSettings(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "executors.read");
  const { models, tools, hosts } = await listExecutorRows(prisma);
  // As a live call checks it (an IPv6 entry is stored without brackets: "::1").
  const allowed = new Set(hosts.map((h) => h.host));
  const hostOk = (raw: string) => urlHostAllowed(raw, allowed);
  return {
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

/** Every executor change goes to the audit log with its author. */
function auditEntry(
  principal: Principal,
  kind: "model" | "tool" | "host" | "mcp",
  change: "saved" | "removed",
  target: string,
  detail: Record<string, string | number | boolean | null> = {},
): AuditEntry {
  return {
    actorId: principal.userId,
    actorName: principal.name,
    action: kind === "host" ? "allowed_host.changed" : "executor.changed",
    target,
    detail: { kind, change, ...detail },
  };
}

export async function saveModelEndpoint(principal: Principal, input: ModelEndpointInput, prisma: Db) {
  authorize(principal, "executors.manage");
  return auditedChange(
    prisma,
    (tx) => upsertModelEndpoint(tx, { ...input, apiKeyEnv: input.apiKeyEnv || null }),
    () => auditEntry(principal, "model", "saved", input.name, { baseUrl: input.baseUrl, model: input.model }),
  );
}

export async function saveToolEndpoint(principal: Principal, input: ToolEndpointInput, prisma: Db) {
  authorize(principal, "executors.manage");
  return auditedChange(
    prisma,
    (tx) => upsertToolEndpoint(tx, input),
    () => auditEntry(principal, "tool", "saved", input.toolName, { url: input.url, readOnly: input.readOnly }),
  );
}

export async function addAllowedHost(principal: Principal, input: AllowedHostInput, prisma: Db) {
  authorize(principal, "executors.manage");
  // Checked before anything is written: an entry that can never match a call (`*`, `__proto__`) is refused.
  const entry = parseAllowListEntry(input.host);
  if (!entry.ok) throw new AppError("invalid_input", entry.message, [{ path: "host", message: "not a host" }]);
  const host = entry.host;
  return auditedChange(
    prisma,
    (tx) => upsertAllowedHost(tx, host),
    () => auditEntry(principal, "host", "saved", host),
  );
}

export async function removeExecutorSetting(principal: Principal, input: RemoveExecutorSettingInput, prisma: Db) {
  authorize(principal, "executors.manage");
  // Named by what it was (the tool, the endpoint, the host); nothing removed, nothing to record.
  await auditedChange(
    prisma,
    (tx) => deleteExecutorSetting(tx, input.kind, input.id),
    (removed) => (removed === null ? null : auditEntry(principal, input.kind, "removed", removed)),
  );
  return { removed: input.id };
}
