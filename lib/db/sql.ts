import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Db, DbClient } from "./prisma";
import { Prisma } from "./generated/client";

// ---------------------------------------------------------------------------
// A transaction as plain SQL statements: what the incremental trace ingest
// needs of the database, and no more. Run on the driver's own transaction
// (PGlite's, or a pg client's BEGIN/COMMIT), an export skips the cost of
// Prisma's interactive transaction around each of its few statements (the
// bench measures both: through Prisma, 100 small transactions cost this
// database about twice what they cost on the driver).
// ---------------------------------------------------------------------------

/** Statements as tagged templates: each value becomes a parameter (`$1`, `$2`, …), never text. */
export type SqlTx = {
  query<T extends unknown[] = Record<string, unknown>[]>(
    strings: TemplateStringsArray,
    ...values: unknown[]
  ): Promise<T>;
};

/** The statements of a Prisma client or interactive transaction, or of a driver's transaction (RawSql). */
export function prismaSql(tx: RawSql): SqlTx {
  return { query: <T>(strings: TemplateStringsArray, ...values: unknown[]) => tx.$queryRaw<T>(strings, ...values) };
}

/**
 * Raw statements as a Prisma client or transaction sends them (`$queryRaw`, `$executeRaw`, as a tagged template or
 * a composed Prisma.Sql): what write functions that use nothing else take, so that they run on the driver's own
 * transaction (rawTransaction) as well as in a Prisma one.
 */
export interface RawSql {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/** One statement on a driver's connection: its rows and how many rows it changed. */
type Runner = (text: string, values: unknown[]) => Promise<{ rows: unknown[]; count: number }>;
type DriverTransaction = <R>(fn: (run: Runner) => Promise<R>) => Promise<R>;
const drivers = new WeakMap<object, DriverTransaction>();
/** One statement on the driver, outside any transaction (its own, as a statement sent alone). */
type SqlStatement = (query: Prisma.Sql) => Promise<unknown[]>;
const statements = new WeakMap<object, SqlStatement>();

/** A statement given as a tagged template or as a composed Prisma.Sql, as its text and values. */
function statementOf(query: TemplateStringsArray | Prisma.Sql, values: unknown[]): [string, unknown[]] {
  // A tagged template's values may be composed statements themselves (Prisma.sql fragments): joined as Prisma does.
  const sql = query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
  return [sql.text, sql.values];
}

const rawSqlOf = (run: Runner): RawSql => ({
  $queryRaw: async <T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) =>
    (await run(...statementOf(query, values))).rows as T,
  $executeRaw: async (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) =>
    (await run(...statementOf(query, values))).count,
});

/** No free connection in time (the pool's connectionTimeoutMillis): the database is out of reach for now (a 503). */
const noConnection = (error: unknown) =>
  Object.assign(new Error("No database connection was free in time.", { cause: error }), { code: "53300" });

/** The embedded database's own transactions, for the client over it. */
export function useDriverTransactions(prisma: Db, driver: { pglite: PGlite } | { pool: pg.Pool }): void {
  if ("pglite" in driver) {
    statements.set(prisma, async (query) => (await driver.pglite.query(query.text, query.values)).rows);
    drivers.set(prisma, (fn) =>
      driver.pglite.transaction((tx) =>
        fn(async (text, values) => {
          const result = await tx.query(text, values);
          return { rows: result.rows, count: result.affectedRows ?? 0 };
        }),
      ),
    );
    return;
  }
  statements.set(prisma, async (query) => {
    const client = await driver.pool.connect().catch((error: unknown) => {
      throw noConnection(error);
    });
    let broken: Error | undefined;
    try {
      return (await client.query(query.text, query.values)).rows as unknown[];
    } catch (error) {
      // A connection that failed under its statement (not the statement's own error) is not given back.
      if (!(error instanceof Error && "severity" in error))
        broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(broken);
    }
  });
  drivers.set(prisma, async (fn) => {
    const client = await driver.pool.connect().catch((error: unknown) => {
      throw noConnection(error);
    });
    // A connection that drops while checked out: its query rejects; the pool's own listener covers it once back.
    const dropped = (error: Error) => console.error("A database connection of the trace ingest failed:", error);
    client.on("error", dropped);
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await fn(async (text, values) => {
        const answer = await client.query(text, values);
        return { rows: answer.rows as unknown[], count: answer.rowCount ?? 0 };
      });
      const done = await client.query("COMMIT");
      // PostgreSQL answers COMMIT of a transaction that failed with ROLLBACK, not an error.
      if (done.command !== "COMMIT") throw new Error(`The transaction was rolled back (${done.command}).`);
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw error;
    } finally {
      client.off("error", dropped);
      // A connection whose ROLLBACK failed is not given back to the pool, but destroyed.
      client.release(broken);
    }
  });
}

/**
 * Runs `fn` in one transaction of plain statements: on the driver's own transaction when the client has
 * one registered, else in a Prisma interactive transaction. All or nothing either way.
 */
export function sqlTransaction<R>(prisma: Db, fn: (sql: SqlTx) => Promise<R>): Promise<R> {
  return rawTransaction(prisma, (tx) => fn(prismaSql(tx)));
}

/**
 * Runs `fn` in one transaction of raw statements (`$queryRaw`, `$executeRaw`): on the driver's own transaction when
 * the client has one registered, else in a Prisma interactive transaction. All or nothing either way; rows read as
 * through Prisma for the column types sql.db.test.ts names.
 */
export function rawTransaction<R>(prisma: Db, fn: (tx: RawSql) => Promise<R>): Promise<R> {
  const driver = drivers.get(prisma);
  if (driver) return driver((run) => fn(rawSqlOf(run)));
  return prisma.$transaction((tx) => fn(tx), { timeout: 120_000, maxWait: 30_000 });
}

/**
 * Runs one statement (a Prisma.sql query, its values as parameters) by itself: on the driver when the client has
 * one registered (no Prisma engine between: on the embedded database that is most of a short statement's cost),
 * else through Prisma. Rows as the driver reads them: the same types as through Prisma for the types the
 * statement's columns have here (sql.db.test.ts). For a hot path's single statement outside a transaction.
 */
export async function sqlStatement<T>(prisma: DbClient, query: Prisma.Sql): Promise<T[]> {
  const run = statements.get(prisma);
  return run ? ((await run(query)) as T[]) : prisma.$queryRaw<T[]>(query);
}
