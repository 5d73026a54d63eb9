import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import {
  bindMigrationAwareSqlAdapterFactory,
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
