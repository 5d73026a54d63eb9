import type { Db, DbClient } from "./client";
import type { RawSql } from "./sql";

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
 * Runs `fn` in `tx` under a savepoint: when it throws, what it wrote is undone (the transaction goes on) and
 * `onError` is told; the transaction's other writes stand.
 */
export async function withSavepoint(
  tx: RawSql,
  fn: () => Promise<void>,
  onError: (error: unknown) => void,
): Promise<void> {
  await tx.$executeRaw`SAVEPOINT inner_work`;
  try {
    await fn();
  } catch (error) {
    await tx.$executeRaw`ROLLBACK TO SAVEPOINT inner_work`;
    onError(error);
  }
}
