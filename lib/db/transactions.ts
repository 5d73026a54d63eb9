import type { Db, DbClient } from "./client";
import type { RawSql } from "./sql";
import type { Prisma } from "./generated/client";

/**
 * Runs writes in one transaction. Write functions in lib/db take the
 * transaction client, so callers compose them (PGlite has no nested
 * transactions).
 */
export async function withTransaction<T>(
  prisma: Db,
  fn: (tx: DbClient) => Promise<T>,
  opts: { timeout: number; maxWait: number } = { timeout: 30_000, maxWait: 15_000 },
): Promise<T> {
  return prisma.$transaction(fn, opts);
}

/**
 * Runs `fn` in `tx` under a savepoint, taken only when it is needed: before the first statement `fn` sends through
 * `guarded`. Work that sends nothing else, or only statements that undo themselves when they fail (sent on `tx`),
 * costs no savepoint (a round trip). When `fn` throws, what it wrote through `guarded`
 * since the savepoint is undone and `onError` is told; the transaction's other writes stand.
 */
export async function withSavepointWhenNeeded(
  tx: RawSql,
  fn: (guarded: RawSql) => Promise<void>,
  onError: (error: unknown) => void,
): Promise<void> {
  // One savepoint, however many statements ask for it at once (reads sent together).
  let taking: Promise<void> | null = null;
  let taken = false;
  const take = () =>
    (taking ??= tx.$executeRaw`SAVEPOINT inner_work`.then(() => {
      taken = true;
    }));
  const guarded: RawSql = {
    $queryRaw: async <T>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      await take();
      return tx.$queryRaw<T>(query, ...values);
    },
    $executeRaw: async (query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]) => {
      await take();
      return tx.$executeRaw(query, ...values);
    },
  };
  try {
    await fn(guarded);
  } catch (error) {
    if (taken) await tx.$executeRaw`ROLLBACK TO SAVEPOINT inner_work`;
    onError(error);
  }
}
