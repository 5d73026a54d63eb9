import { database } from "./database";

export async function openAtStartup(): Promise<void> {
  const started = Date.now();
  try {
    const db = await database();
    const migrated = db.appliedMigrations.length ? `, applied ${db.appliedMigrations.length} migration(s)` : "";
    console.log(
      `Branchpoint: database ready (${db.engine} at ${db.location}${migrated}) in ${Date.now() - started} ms`,
    );
  } catch (error) {
    console.error(`Branchpoint: cannot open the database.\n${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
