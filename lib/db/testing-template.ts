/**
 * The database tests' global set-up: one migrated template per engine for the whole run. Each test file runs in
 * a process of its own, and migrating per database cost every file a fresh migration (10–20 s on two cores for
 * PGlite, 2–4 s for a PostgreSQL database); made here once, every PGlite database copies the template's folder
 * (about 1 s) and every PostgreSQL database is created from the template database (about 0.1 s). Never used by
 * the app.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { openDatabase } from "./client";
import { PGLITE_TEMPLATE_ENV, POSTGRES_TEMPLATE_ENV, postgresAdmin, postgresTestUrl } from "./testing";

async function postgresTemplate(): Promise<string | null> {
  const name = `branchpoint_template_${randomBytes(6).toString("hex")}`;
  try {
    await postgresAdmin(`CREATE DATABASE ${name}`);
  } catch (error) {
    // No server: the PostgreSQL tests fail on their own with the server's error; the PGlite ones still run.
    console.warn(`No PostgreSQL template for the database tests (${(error as Error).message})`);
    return null;
  }
  const db = await openDatabase({ url: postgresTestUrl(name) });
  await db.close();
  return name;
}

export default async function setup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-pglite-template-"));
  const db = await openDatabase({ dir, url: "" });
  await db.close();
  const pgTemplate = await postgresTemplate();
  // The test processes are started after this and inherit them.
  process.env[PGLITE_TEMPLATE_ENV] = dir;
  if (pgTemplate) process.env[POSTGRES_TEMPLATE_ENV] = pgTemplate;
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (pgTemplate) await postgresAdmin(`DROP DATABASE IF EXISTS ${pgTemplate} WITH (FORCE)`);
  };
}
