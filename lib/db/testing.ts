/**
 * Real databases for tests: the embedded PGlite (a migrated template made
 * once per run and copied per database, since creating one takes seconds) and
 * the PostgreSQL server at 127.0.0.1:5432 (a database created and dropped per
 * test file). Never used by the app.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { openDatabase, type Database, type Db } from "./client";
import { PrismaClient } from "./generated/client";

export type TestEngine = "pglite" | "postgres";
export const TEST_ENGINES: TestEngine[] = ["pglite", "postgres"];
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Where the database tests' global set-up (testing-template.ts) put the run's migrated template. */
export const PGLITE_TEMPLATE_ENV = "BRANCHPOINT_TEST_PGLITE_TEMPLATE";
/** The name of the migrated PostgreSQL database the global set-up made, which each test database copies. */
export const POSTGRES_TEMPLATE_ENV = "BRANCHPOINT_TEST_POSTGRES_TEMPLATE";

/** `name` on the test server: the admin URL with another database. */
export function postgresTestUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A statement on the test server's admin database, on a connection of its own. */
export async function postgresAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

async function pgliteTemplate(): Promise<string> {
  const shared = process.env[PGLITE_TEMPLATE_ENV];
  if (shared && existsSync(path.join(shared, "pgdata"))) return shared;
  // Outside the test runner (a bench, a script): a template of this process's own.
  const own = path.join(tmpdir(), `branchpoint-pglite-template-${process.pid}`);
  if (!existsSync(path.join(own, "pgdata"))) {
    const db = await openDatabase({ dir: own, url: "" });
    await db.close();
  }
  return own;
}

/** A new temporary folder holding a copy of the migrated template: an embedded database that opens at once. */
export async function migratedDataDir(): Promise<string> {
  const template = await pgliteTemplate();
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-test-"));
  cpSync(path.join(template, "pgdata"), path.join(dir, "pgdata"), { recursive: true });
  return dir;
}

export type TestDatabase = Database & {
  /** The PostgreSQL database's URL (a server started on it, as a bench does); "" on PGlite. */
  url: string;
  drop(): Promise<void>;
};

/** A fresh, migrated, empty database on the given engine. */
export async function createTestDatabase(engine: TestEngine): Promise<TestDatabase> {
  if (engine === "pglite") {
    const dir = await migratedDataDir();
    const db = await openDatabase({ dir, url: "" });
    return {
      ...db,
      url: "",
      drop: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `branchpoint_test_${randomBytes(6).toString("hex")}`;
  // A copy of the run's migrated template where there is one (a file copy on the server, about 0.1 s), instead of
  // applying every migration again (2 to 4 s a database on two cores).
  const template = process.env[POSTGRES_TEMPLATE_ENV];
  await postgresAdmin(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = postgresTestUrl(name);
  const db = await openDatabase({ url });
  return {
    ...db,
    url,
    drop: async () => {
      await db.close();
      await postgresAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * The index entries each index of "Event" and "TraceSpan" gives `work`, run inside `tx`: the engine's counts
 * for this transaction after it, less those before (it keeps counting across transactions until it reports them).
 */
export async function indexEntriesRead(
  tx: { $queryRaw<T>(query: TemplateStringsArray, ...values: unknown[]): Promise<T> },
  work: () => Promise<unknown>,
): Promise<Record<string, number>> {
  const counts = async () =>
    new Map(
      (
        await tx.$queryRaw<{ index: string; read: bigint }[]>`
          SELECT c.relname AS index, pg_stat_get_xact_tuples_returned(c.oid) AS read FROM pg_class c
          WHERE c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN ('"Event"'::regclass, '"TraceSpan"'::regclass))`
      ).map((r) => [r.index, Number(r.read)]),
    );
  const before = await counts();
  await work();
  const after = await counts();
  return Object.fromEntries([...after].map(([index, read]) => [index, read - (before.get(index) ?? 0)]));
}

/**
 * A second client over `database`'s own connection (the embedded one) or server, which records the text of
 * every statement it sends: for tests that count statements. `close` lets its connections go.
 */
export function statementCountingClient(database: Database): {
  prisma: Db;
  statements: string[];
  close(): Promise<void>;
} {
  const adapter =
    database.engine === "postgres" ? new PrismaPg(database.pgConfig!) : new PrismaPGlite(database.pglite!);
  const client = new PrismaClient({ adapter, log: [{ emit: "event", level: "query" }] });
  const statements: string[] = [];
  client.$on("query", (e) => statements.push(e.query));
  return { prisma: client as unknown as Db, statements, close: () => client.$disconnect() };
}

/**
 * Everything stored of some sessions but their ids and creation times, by external id: events, trace ids, cluster
 * membership and span rows (without their packed payloads), to compare two ways of storing the same input.
 */
export function storedSessionsWhole(prisma: Db, ids: readonly string[]) {
  return prisma.session.findMany({
    where: { id: { in: [...ids] } },
    orderBy: { externalId: "asc" },
    include: {
      events: { orderBy: { seq: "asc" }, omit: { id: true, sessionId: true } },
      traces: { orderBy: { traceId: "asc" }, select: { traceId: true } },
      cluster: { select: { clusterId: true, signatureHash: true, agentVersionId: true, seenAt: true } },
      spans: {
        orderBy: [{ traceId: "asc" }, { spanId: "asc" }],
        omit: { id: true, sessionId: true, receivedAt: true, packed: true },
      },
    },
    omit: { id: true, createdAt: true },
  });
}
