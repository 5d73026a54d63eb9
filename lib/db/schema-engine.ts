import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type * as EngineGlue from "@prisma/schema-engine-wasm";
import type { MigrationList, SchemaEngine } from "@prisma/schema-engine-wasm";

/**
 * Prisma's schema engine, compiled to WebAssembly, driven through a driver
 * adapter. Prisma's CLI would download a native engine these machines cannot
 * reach; this is the same engine, so migrations and `_prisma_migrations`
 * stay compatible with the real CLI wherever it is available.
 */

export const MIGRATIONS_DIR = path.join(process.cwd(), "prisma", "migrations");
export const SCHEMA_PATH = path.join(process.cwd(), "prisma", "schema.prisma");
const NO_FILTER = { externalTables: [], externalEnums: [] };

type EngineModule = typeof EngineGlue;

let enginePromise: Promise<EngineModule> | undefined;

async function loadEngineModule(): Promise<EngineModule> {
  // Node 20 cannot `import` a .wasm file: instantiate it by hand with the
  // JS glue module as its import object, as wasm-bindgen's loader would.
  const glue = (await import("@prisma/schema-engine-wasm/schema_engine_bg")) as unknown as EngineModule & {
    __wbg_set_wasm(exports: WebAssembly.Exports): void;
  };
  const bytes = await readFile(
    /*turbopackIgnore: true*/ path.join(
      process.cwd(),
      "node_modules",
      "@prisma",
      "schema-engine-wasm",
      "schema_engine_bg.wasm",
    ),
  );
  const { instance } = await WebAssembly.instantiate(bytes, {
    "./schema_engine_bg.js": glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return glue;
}

export async function openSchemaEngine(
  factory: SqlMigrationAwareDriverAdapterFactory,
  schemaPath = SCHEMA_PATH,
): Promise<SchemaEngine> {
  enginePromise ??= loadEngineModule();
  const mod = await enginePromise;
  const datamodel = await readFile(/*turbopackIgnore: true*/ schemaPath, "utf8");
  const log = (line: string) => {
    if (process.env.BRANCHPOINT_DEBUG_MIGRATIONS) console.error("[schema-engine]", line);
  };
  return mod.SchemaEngine.new(
    { datamodels: [[schemaPath, datamodel]] },
    log,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
}

/** Reads prisma/migrations as the engine expects it (Prisma's standard layout). */
export async function readMigrations(dir = MIGRATIONS_DIR): Promise<MigrationList> {
  const entries = await readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrationDirectories = await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name, "migration.sql");
      const content = await readFile(/*turbopackIgnore: true*/ file, "utf8")
        .then((value) => ({ tag: "ok" as const, value }))
        .catch((error: unknown) => ({ tag: "error" as const, value: String(error) }));
      return { path: name, migrationFile: { path: "migration.sql", content } };
    }),
  );
  const lockPath = path.join(dir, "migration_lock.toml");
  const lockContent = await readFile(/*turbopackIgnore: true*/ lockPath, "utf8").catch(() => null);
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: lockContent },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}

/** Applies every pending migration; returns the names applied. */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openSchemaEngine(factory);
  try {
    const result = await engine.applyMigrations({ migrationsList: await readMigrations(), filters: NO_FILTER });
    return result.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/** Branchpoint's own advisory lock around start-up migrations on PostgreSQL (next to Prisma's 72707369). */
export const STARTUP_MIGRATION_LOCK = 72707370;
const STARTUP_LOCK_PATIENCE_MS = 5 * 60_000;

/**
 * Applies migrations on a PostgreSQL database once no other Branchpoint process is: workers and servers started
 * together all migrate at start-up, and the engine gives up on its own lock after 10 s, which a busy machine exceeds
 * (the second of two workers started at once exited with P1002). Waiting here, without a 10 s limit, puts each
 * process after the others; the engine then finds its lock free and nothing left to apply.
 */
export async function applyMigrationsInTurn(
  factory: SqlMigrationAwareDriverAdapterFactory,
  config: pg.ClientConfig,
  patienceMs = STARTUP_LOCK_PATIENCE_MS,
): Promise<string[]> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    await client.query(`SET lock_timeout = ${Math.max(1, Math.round(patienceMs))}`);
    try {
      await client.query("SELECT pg_advisory_lock($1)", [STARTUP_MIGRATION_LOCK]);
    } catch (error) {
      if ((error as { code?: string }).code !== "55P03") throw error;
      throw new Error(
        `Another process has been applying database migrations for over ${Math.round(patienceMs / 1000)} s; start this one again once it has finished.`,
        { cause: error },
      );
    }
    // The engine's own connections end with it: `free()` leaves the pool it connected open, an idle session that
    // holds the database (a database with a session cannot be the template of another) until the process exits.
    const opened: SqlDriverAdapter[] = [];
    const connect = async (open: () => Promise<SqlDriverAdapter>) => {
      const adapter = await open();
      opened.push(adapter);
      return adapter;
    };
    try {
      return await applyMigrations({
        provider: factory.provider,
        adapterName: factory.adapterName,
        connect: () => connect(() => factory.connect()),
        connectToShadowDb: () => connect(() => factory.connectToShadowDb()),
      });
    } finally {
      await Promise.all(opened.map((adapter) => adapter.dispose()));
    }
  } finally {
    // Ending the session releases its lock.
    await client.end();
  }
}

export { NO_FILTER };

/**
 * The SQL that would bring a database migrated by the committed migrations to
 * prisma/schema.prisma ("" when they agree): `engine` is opened on an empty
 * database, which this migrates. What `npm run db:migrate:create` writes.
 */
export async function pendingSchemaChange(engine: SchemaEngine): Promise<string> {
  await engine.applyMigrations({ migrationsList: await readMigrations(), filters: NO_FILTER });
  const schema = { files: [{ path: SCHEMA_PATH, content: await readFile(SCHEMA_PATH, "utf8") }] };
  const diff = await engine.diff({
    from: { tag: "schemaDatasource", files: schema.files, configDir: process.cwd() },
    to: { tag: "schemaDatamodel", ...schema },
    script: true,
    exitCode: null,
    filters: NO_FILTER,
  });
  const script = (diff.stdout ?? "").trim();
  return /^(-- This is an empty migration\.?)?$/.test(script) ? "" : script;
}
