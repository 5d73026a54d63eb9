import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { dataDir, env } from "@/lib/env";
import { makeClient, type Db } from "./prisma";
import { acquireDataDirLock } from "./lock";
import { applyMigrations, applyMigrationsInTurn } from "./schema-engine";
import { useDriverTransactions } from "./sql";

export type { Db, DbClient } from "./prisma";

/**
 * Clients over the embedded database: one connection, so its transactions
 * already run one at a time (no advisory locks needed to serialize them).
 */
const oneConnection = new WeakSet<object>();
export const isOneConnection = (client: object): boolean => oneConnection.has(client);

export type Database = {
  prisma: Db;
  engine: "pglite" | "postgres";
  /** Where the data lives, for people: a folder or host/database. */
  location: string;
  appliedMigrations: string[];
  /** The embedded database's one connection (the job queue shares it); null on PostgreSQL. */
  pglite: PGlite | null;
  /** The PostgreSQL server's connection settings (the job queue opens its own pool); null on PGlite. */
  pgConfig: ReturnType<typeof pgConfigFromUrl> | null;
  close(): Promise<void>;
};

/** Connection settings from a postgres:// URL, passed apart (a connection string makes the adapter point its shadow database at the main one). */
export function pgConfigFromUrl(url: string) {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname),
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || "postgres",
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
  };
}

export async function openDatabase(opts: { url?: string; dir?: string } = {}): Promise<Database> {
  const url = opts.url ?? env().DATABASE_URL;
  if (url) {
    const config = pgConfigFromUrl(url);
    const factory = new PrismaPg(config);
    const appliedMigrations = await applyMigrationsInTurn(factory, config);
    const prisma = makeClient(factory);
    // A small pool of its own for the trace ingest's plain-SQL transactions (see ./sql.ts).
    // As many connections as imports may run at once (each export holds one), waiting at most as long as
    // Prisma's transactions did for theirs; an idle connection that drops is logged, not an uncaught error.
    const pool = new pg.Pool({
      ...config,
      max: Math.max(2, env().BRANCHPOINT_IMPORT_CONCURRENCY + 1),
      connectionTimeoutMillis: 30_000,
    });
    pool.on("error", (error) => console.error("An idle database connection of the trace ingest failed:", error));
    useDriverTransactions(prisma, { pool });
    return {
      prisma,
      engine: "postgres",
      location: `${config.host}:${config.port}/${config.database}`,
      appliedMigrations,
      pglite: null,
      pgConfig: config,
      close: async () => {
        try {
          await prisma.$disconnect();
        } finally {
          await pool.end();
        }
      },
    };
  }
  const dir = opts.dir ?? dataDir();
  const release = acquireDataDirLock(dir);
  try {
    const pglite = await PGlite.create(`${dir}/pgdata`);
    const factory = new PrismaPGlite(pglite);
    const appliedMigrations = await applyMigrations(factory);
    const prisma = makeClient(factory);
    oneConnection.add(prisma);
    useDriverTransactions(prisma, { pglite });
    return {
      prisma,
      engine: "pglite",
      location: dir,
      appliedMigrations,
      pglite,
      pgConfig: null,
      close: async () => {
        await prisma.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
