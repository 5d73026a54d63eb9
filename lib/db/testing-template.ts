/**
 * The database tests' global set-up: one migrated PGlite template for the whole run. Each test file runs in
 * a process of its own, and a template made per process cost every file a fresh migration (10–20 s on two
 * cores, most of the suite's time); made here once, every file copies it (about 1 s). Never used by the app.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "./client";
import { PGLITE_TEMPLATE_ENV } from "./testing";

export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-pglite-template-"));
  const db = await openDatabase({ dir, url: "" });
  await db.close();
  // The test processes are started after this and inherit it.
  process.env[PGLITE_TEMPLATE_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
