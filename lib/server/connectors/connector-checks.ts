/** What adding a connector and editing one both check: its host is an allowed destination, its name is free. */
import type { Db } from "@/lib/db";
import { findConnector } from "@/lib/db/connectors";
import { AppError } from "@/lib/errors";
import { checkDestination, OutboundRefused, type Resolver } from "@/lib/executors/outbound";

/** A 400 naming the base URL when its host is not on the executor allow-list (checked again after DNS). */
export async function checkConnectorHost(
  refused: string,
  baseUrl: string,
  allowed: ReadonlySet<string>,
  resolve?: Resolver,
): Promise<void> {
  try {
    await checkDestination(new URL(baseUrl), allowed, resolve);
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    throw new AppError("invalid_input", `${refused}: ${error.message} Add its host under Settings → Executors first.`, [
      { path: "baseUrl", message: "not an allowed destination" },
    ]);
  }
}

/** A 409 when another connector has this name (`except`: the connector being renamed). */
export async function checkNameFree(prisma: Db, name: string, except?: string): Promise<void> {
  const other = await findConnector(prisma, { name });
  if (other && other.id !== except)
    throw new AppError("conflict", `A connector named "${name}" exists already; choose another name.`, [
      { path: "name", message: "taken" },
    ]);
}
