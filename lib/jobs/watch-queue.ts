/**
 * The watches' jobs ride on the online-check queue (`check-run`) in an envelope, run by its worker: evaluations as
 * sessions arrive, an evaluation owed at a window's end and a webhook retry (each starts after its delay, through
 * pg-boss's `startAfter`), the sweep's evaluations of watches whose window has passed, and the
 * look-backs that write an investigation's draft report. No worker of their own: one more polling worker per
 * process shifted which worker took which replay (a database test that kills a worker mid-investigation decided
 * another step). The handler counts and logs attempts itself, so pg-boss does not retry them.
 */
import type PgBoss from "pg-boss";
import type { Database } from "@/lib/db/client";
import { staleSendingAttempts, watchesToSweep } from "@/lib/db/watches";
import type { WatchJob } from "@/lib/watches/jobs";

export type { WatchJob };

export type WatchHandler = (prisma: Database["prisma"], job: WatchJob) => Promise<void>;

/** A watch job in the check queue. */
export type WatchEnvelope = { kind: "watch"; watch: WatchJob };

export const isWatchEnvelope = (data: { kind: string }): data is WatchEnvelope => data.kind === "watch";

/** Puts watch work on the check queue, to start after `delayMs`. */
export function watchEnqueuer(boss: PgBoss, queue: string) {
  return async (items: readonly WatchJob[], delayMs = 0): Promise<void> => {
    if (items.length === 0) return;
    const startAfter = delayMs > 0 ? new Date(Date.now() + delayMs) : undefined;
    await boss.insert(
      items.map((watch) => ({
        name: queue,
        data: { kind: "watch", watch } satisfies WatchEnvelope,
        retryLimit: 0,
        ...(startAfter ? { startAfter } : {}),
      })),
    );
  };
}

/**
 * The sweep's part for watches: those whose window has passed and that owe an evaluation (its delayed job was lost)
 * or whose condition moves with time alone (a cluster's growth) get an evaluation job; webhook attempts left
 * sending by a stopped worker get a job that sends them again. Returns how many jobs.
 */
export async function sweepWatches(
  prisma: Database["prisma"],
  enqueue: (items: readonly WatchJob[]) => Promise<void>,
): Promise<number> {
  const now = new Date();
  const watches = await watchesToSweep(prisma, now);
  const sends = await staleSendingAttempts(prisma, now);
  const jobs: WatchJob[] = [
    ...(watches.length > 0 ? [{ kind: "sweep" as const, watchIds: watches.map((w) => w.id) }] : []),
    ...sends.map((s) => ({ kind: "deliver" as const, triggerId: s.triggerId, attempt: s.attempt })),
  ];
  await enqueue(jobs);
  return jobs.length;
}
