/**
 * The watches' queue: evaluations as sessions arrive, webhook attempts (a retry starts after its backoff, through
 * pg-boss's `startAfter`), and the look-backs that write an investigation's draft report once its blame searches
 * finished. The handler decides everything (attempts are counted and logged by it), so pg-boss does not retry.
 */
import type PgBoss from "pg-boss";
import type { Database } from "@/lib/db/client";

export const WATCH_QUEUE = "watch-run";

/** Watch work (lib/server/job-queue.ts `WatchJob`). */
export type WatchJob =
  | { kind: "evaluate"; agentIds: string[] }
  | { kind: "deliver"; triggerId: string; attempt: number }
  | { kind: "report"; triggerId: string; round: number };

export type WatchHandler = (prisma: Database["prisma"], job: WatchJob) => Promise<void>;

export async function createWatchQueue(boss: PgBoss): Promise<void> {
  if (await boss.getQueue(WATCH_QUEUE)) return;
  try {
    await boss.createQueue(WATCH_QUEUE, { name: WATCH_QUEUE, retryLimit: 0, expireInSeconds: 600 });
  } catch (error) {
    if (!(await boss.getQueue(WATCH_QUEUE))) throw error;
  }
}

/** Puts watch work on the queue, to start after `delayMs`. */
export function watchEnqueuer(boss: PgBoss) {
  return async (items: readonly WatchJob[], delayMs = 0): Promise<void> => {
    if (items.length === 0) return;
    const startAfter = delayMs > 0 ? new Date(Date.now() + delayMs) : undefined;
    await boss.insert(
      items.map((data) => ({ name: WATCH_QUEUE, data, retryLimit: 0, ...(startAfter ? { startAfter } : {}) })),
    );
  };
}

/** One watch job at a time per process: evaluations are small, and a webhook attempt waits at most its timeout. */
export async function startWatchWorker(
  boss: PgBoss,
  prisma: Database["prisma"],
  handler: WatchHandler,
  pollSeconds: number,
): Promise<void> {
  await boss.work<WatchJob>(WATCH_QUEUE, { batchSize: 1, pollingIntervalSeconds: pollSeconds }, async ([job]) => {
    if (job) await handler(prisma, job.data);
  });
}
