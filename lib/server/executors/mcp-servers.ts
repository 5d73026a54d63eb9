/**
 * Upstream MCP servers (`/api/v1/executors/mcp`): the servers an agent-driven replay's MCP proxy lists tools
 * from and forwards passthrough calls to. Admins register them (`{ name, url }`, streamable HTTP); the url
 * must pass the same allow-list and outbound guard as every live executor, checked when it is registered and
 * again on every call. Every change goes to the audit log.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { auditedChange, type AuditEntry } from "@/lib/db/audit";
import { allowedHosts, findMcpServer, listMcpServers, upsertMcpServer } from "@/lib/db/executors";
import { AppError, invalidInput } from "@/lib/errors";
import { parseHttpUrl, urlHostAllowed } from "@/lib/executors/live";
import { checkDestination, OutboundRefused, type Resolver } from "@/lib/executors/outbound";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { removeExecutorSetting } from "./executors";

export const McpServerInput = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "Give the MCP server a name (policies name it in mcpServer).")
    .max(100, "At most 100 characters."),
  url: z
    .string()
    .trim()
    .max(2000, "At most 2000 characters.")
    .refine((v) => parseHttpUrl(v) !== null, "The url must be an http:// or https:// URL (the server's MCP endpoint).")
    .refine((v) => {
      const url = parseHttpUrl(v);
      return url === null || (url.username === "" && url.password === "" && url.hash === "");
    }, "The url must not carry a user name, a password or a #fragment."),
});
export type McpServerInput = z.infer<typeof McpServerInput>;

/** The audit entry of a registration, as every executor change has (its removal is audited by removeExecutorSetting). */
const savedEntry = (principal: Principal, data: McpServerInput): AuditEntry => ({
  actorId: principal.userId,
  actorName: principal.name,
  action: "executor.changed",
  target: data.name,
  detail: { kind: "mcp", change: "saved", url: data.url },
});

type McpRow = { id: string; name: string; url: string; createdAt: Date };
const view = (row: McpRow, allowed: ReadonlySet<string>) => ({
  id: row.id,
  name: row.name,
  url: row.url,
  hostAllowed: urlHostAllowed(row.url, allowed),
  createdAt: row.createdAt.toISOString(),
});

/** The registered MCP servers, each with whether its host is (still) on the allow-list. */
export async function listMcpExecutors(principal: Principal, prisma: Db) {
  authorize(principal, "executors.read");
  const [rows, allowed] = await Promise.all([listMcpServers(prisma), allowedHosts(prisma)]);
  return rows.map((row) => view(row, allowed));
}

/**
 * Registers (or re-points, by name) an upstream MCP server. Refused with a 400 naming why, writing nothing,
 * when the url is not http(s) or the outbound guard refuses its host (not allow-listed, unresolvable, or a
 * private address nobody allow-listed).
 */
export async function registerMcpExecutor(
  principal: Principal,
  input: unknown,
  prisma: Db,
  deps: { resolve?: Resolver } = {},
) {
  authorize(principal, "executors.manage");
  const parsed = McpServerInput.safeParse(input);
  if (!parsed.success) throw invalidInput("The MCP server is not valid.", parsed.error);
  const data = parsed.data;
  const allowed = await allowedHosts(prisma);
  try {
    await checkDestination(new URL(data.url), allowed, deps.resolve);
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    throw new AppError(
      "invalid_input",
      `The MCP server "${data.name}" cannot be registered: ${error.message} Add its host under Settings → Executors first.`,
      [{ path: "url", message: "not an allowed destination" }],
    );
  }
  await auditedChange(
    prisma,
    (tx) => upsertMcpServer(tx, data),
    () => savedEntry(principal, data),
  );
  const row = await findMcpServer(prisma, { name: data.name });
  if (!row) throw new AppError("conflict", "The MCP server changed while it was saved; send the request again.");
  return view(row, allowed);
}

/** Removes one registered MCP server (audited); 404 when there is none with that id. */
export async function removeMcpExecutor(principal: Principal, id: string, prisma: Db) {
  authorize(principal, "executors.manage");
  const row = await findMcpServer(prisma, { id });
  if (!row) throw new AppError("not_found", `No MCP server with id "${id}".`);
  await removeExecutorSetting(principal, { kind: "mcp", id }, prisma);
  return view(row, await allowedHosts(prisma));
}
