/**
 * The costs of sessions a trace export marked (lib/db/prices.ts): worked out a moment after the exports,
 * once for however many came in meanwhile, off the export's request, so a session receiving a trace a
 * second is summed once a minute rather than on every export (each sweep reads the whole of every session it
 * prices). A session page opened meanwhile works its own out (sessionCost).
 */
import type { Db } from "@/lib/db";
import { backfillCosts } from "@/lib/db/prices";

/** How long after an export the sweep runs (a test that works the costs out itself sets it longer). */
export const costSweep = { delayMs: 60_000 };
const pending = new WeakMap<Db, Promise<void>>();

/** Works out the marked sessions' costs after costSweep.delayMs, unless that is already due for this database. */
export function scheduleCostBackfill(prisma: Db): void {
  if (pending.has(prisma)) return;
  const run = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(prisma);
      backfillCosts(prisma)
        .catch((error: unknown) => {
          // A database closed meanwhile (a test's, a stopping server's) has nothing left to price.
          if (error instanceof Error && /closed|terminat/i.test(error.message)) return;
          console.warn(
            `Branchpoint: session costs not worked out yet: ${error instanceof Error ? error.message : String(error)}`,
          );
        })
        .finally(resolve);
    }, costSweep.delayMs);
    timer.unref();
  });
  pending.set(prisma, run);
}
