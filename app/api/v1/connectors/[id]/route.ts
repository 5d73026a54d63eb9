import { z } from "zod";
import { route } from "@/lib/http/route";
import { deleteConnector, updateConnector } from "@/lib/server/connectors/connector-admin";

export const dynamic = "force-dynamic";

/**
 * PATCH /api/v1/connectors/:id (admin): any of `{ name, baseUrl, secretKeyEnv, publicKey (Langfuse), project
 * (the others) }` → `{ "connector" }`. The kind never changes; a new base URL's host must be on the executor
 * allow-list; a name taken is a 409.
 */
export const PATCH = route<{ id: string }, undefined, z.ZodUnknown>(
  { accept: ["api_key"], body: z.unknown() },
  async ({ body, params, prisma, principal }) =>
    Response.json({ connector: await updateConnector(principal, { connectorId: params.id, edit: body }, prisma) }),
);

/**
 * DELETE /api/v1/connectors/:id (admin) → `{ "deleted": id }`: the connector and its pulls go (their schedules
 * end); the sessions they imported stay. A 409 while one of its pulls is queued or running: cancel it first.
 */
export const DELETE = route<{ id: string }>({ accept: ["api_key"] }, async ({ params, prisma, principal }) =>
  Response.json(await deleteConnector(principal, { connectorId: params.id }, prisma)),
);
