/**
 * The Prisma client's type and how one is made, apart from opening a database
 * (client.ts), so the SQL helpers can name the client without importing the
 * module that opens it.
 */
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaClient } from "./generated/client";

/** Secret columns never leave the database unless a query asks for them by name. */
const OMIT = {
  apiKey: { keyHash: true },
  shareLink: { tokenHash: true },
  invitation: { tokenHash: true },
} as const;

export function makeClient(adapter: SqlMigrationAwareDriverAdapterFactory) {
  return new PrismaClient({ adapter, omit: OMIT });
}
export type Db = ReturnType<typeof makeClient>;
/** A client or an interactive transaction's client: every lib/db function takes one, so callers compose transactions. */
export type DbClient = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;
