import type { DbClient } from "./client";

/** A query that reads nothing, to learn that the database answers now. */
export async function pingDatabase(client: DbClient): Promise<void> {
  await client.$queryRaw`SELECT 1`;
}
