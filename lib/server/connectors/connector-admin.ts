/**
 * Editing and removing a connector (admin, audited). An edit changes any of its fields but its kind; a new base
 * URL must be on the executor allow-list as when it was added, a new name free. A connector is removed with its
 * pulls (their schedules end), never under a pull that is queued or running (a 409: cancel it first); the sessions
 * its pulls imported stay.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { auditedChange } from "@/lib/db/audit";
import { activePullCount, deleteConnectorRow, findConnector, updateConnectorRow } from "@/lib/db/connectors";
import { allowedHosts } from "@/lib/db/executors";
import { AppError, invalidInput, notFound } from "@/lib/errors";
import type { Resolver } from "@/lib/executors/outbound";
import { isObject } from "@/lib/ingest/otlp/attributes";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { checkConnectorHost, checkNameFree } from "./connector-checks";
import { CONNECTOR_FIELDS, connectorView } from "./connectors";

/** What an edit may change: any of a connector's fields but its kind, at least one. */
export const ConnectorEdit = z
  .object({
    name: CONNECTOR_FIELDS.name.optional(),
    baseUrl: CONNECTOR_FIELDS.baseUrl.optional(),
    secretKeyEnv: CONNECTOR_FIELDS.secretKeyEnv.optional(),
    publicKey: z.string().trim().min(1, "Give the project's public key (pk-lf-…).").max(200).optional(),
    project: z.string().trim().min(1, "Give the project to pull from.").max(200).optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), "Give at least one field to change.");
export type ConnectorEdit = z.infer<typeof ConnectorEdit>;

/**
 * Changes a connector's fields (admin, audited): a 400 naming the field when it is not one its kind has (a
 * Langfuse connector has a public key, the others a project; the kind never changes) or its new host is not
 * allowed, a 409 when the new name is taken. A pull under way goes on with the connector as it was when it started.
 */
export async function updateConnector(
  principal: Principal,
  input: { connectorId: string; edit: unknown },
  prisma: Db,
  deps: { resolve?: Resolver } = {},
) {
  authorize(principal, "executors.manage");
  if (isObject(input.edit) && Object.hasOwn(input.edit, "kind"))
    throw new AppError("invalid_input", "A connector's kind cannot change; add another connector instead.", [
      { path: "kind", message: "cannot change" },
    ]);
  const parsed = ConnectorEdit.safeParse(input.edit);
  if (!parsed.success) throw invalidInput("The connector's change is not valid.", parsed.error);
  const edit = parsed.data;
  const row = await findConnector(prisma, { id: input.connectorId });
  if (!row) throw notFound("connector", input.connectorId);
  const foreign = row.kind === "langfuse" ? "project" : "publicKey";
  if (edit[foreign] !== undefined)
    throw new AppError("invalid_input", `A ${row.kind} connector has no ${foreign} to change.`, [
      { path: foreign, message: `not a field of a ${row.kind} connector` },
    ]);
  const allowed = await allowedHosts(prisma);
  const name = edit.name ?? row.name;
  if (edit.baseUrl !== undefined)
    await checkConnectorHost(`The connector "${name}" cannot be changed`, edit.baseUrl, allowed, deps.resolve);
  if (edit.name !== undefined) await checkNameFree(prisma, edit.name, row.id);
  const changed = (Object.keys(edit) as (keyof ConnectorEdit)[]).filter(
    (key) => edit[key] !== undefined && edit[key] !== row[key],
  );
  if (changed.length === 0) return connectorView(row, allowed);
  const updated = await auditedChange(
    prisma,
    (tx) => updateConnectorRow(tx, row.id, Object.fromEntries(changed.map((key) => [key, edit[key]]))),
    (saved) => ({
      actorId: principal.userId,
      actorName: principal.name,
      action: "connector.changed",
      target: saved.name,
      detail: { change: "edited", fields: changed, ...(saved.name !== row.name ? { was: row.name } : {}) },
    }),
  );
  return connectorView(updated, allowed);
}

/**
 * Removes a connector and its pulls (admin, audited); a 409 while one of its pulls is queued or running (cancel it
 * first). The sessions its pulls imported stay; a schedule ends with its pull.
 */
export async function deleteConnector(principal: Principal, input: { connectorId: string }, prisma: Db) {
  authorize(principal, "executors.manage");
  const row = await findConnector(prisma, { id: input.connectorId });
  if (!row) throw notFound("connector", input.connectorId);
  await auditedChange(
    prisma,
    async (tx) => {
      if ((await activePullCount(tx, row.id)) > 0)
        throw new AppError(
          "wrong_state",
          `The connector "${row.name}" has a pull queued or running; cancel it, and delete the connector once it has stopped.`,
        );
      return deleteConnectorRow(tx, row.id);
    },
    (deleted) =>
      deleted
        ? {
            actorId: principal.userId,
            actorName: principal.name,
            action: "connector.changed",
            target: row.name,
            detail: { change: "deleted", kind: row.kind },
          }
        : null,
  );
  return { deleted: row.id };
}
