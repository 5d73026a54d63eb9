import { openDatabase, type Database, type Db } from "./client";
import { ensureStartupData } from "./startup";

const globalForDb = globalThis as unknown as { __branchpointDb?: Promise<Database> };

/**
 * The one database of this process, opened (migrated, the environment's API
 * key registered) on first use; the server's start-up adds the demo data. Cached on globalThis so Next's dev
 * reloads reuse it: PGlite allows one instance per folder.
 */
export function database(): Promise<Database> {
  globalForDb.__branchpointDb ??= (async () => {
    const db = await openDatabase();
    await ensureStartupData(db.prisma);
    return db;
  })().catch((error: unknown) => {
    globalForDb.__branchpointDb = undefined;
    throw error;
  });
  return globalForDb.__branchpointDb;
}

export async function db(): Promise<Db> {
  return (await database()).prisma;
}
