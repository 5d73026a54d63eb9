/**
 * The job queue of this process (the web server's), opened on first use and
 * kept on globalThis like the database. It runs workers in process on the
 * embedded database (the quick start needs nothing else), and on PostgreSQL
 * unless BRANCHPOINT_WORKERS=external leaves the work to `npm run worker`.
 */
import { database } from "@/lib/db/database";
import type { Enqueue } from "@/lib/server/replays";
import { runsWorkersInProcess, startJobs, type Jobs } from "./queue";
import { plural } from "@/lib/format";

const globalForJobs = globalThis as unknown as { __branchpointJobs?: Promise<Jobs> };

export function jobs(): Promise<Jobs> {
  globalForJobs.__branchpointJobs ??= (async () => {
    const db = await database();
    const work = runsWorkersInProcess(db);
    const started = await startJobs(db, { work });
    console.log(
      work
        ? `Branchpoint: job queue ready, ${plural(started.workers.length, "worker")} in this process`
        : "Branchpoint: job queue ready; replays run in `npm run worker` processes",
    );
    return started;
  })().catch((error: unknown) => {
    globalForJobs.__branchpointJobs = undefined;
    throw error;
  });
  return globalForJobs.__branchpointJobs;
}

/** Puts replays on the queue; the request that made them answers at once. */
export const enqueue: Enqueue = async (replayIds) => (await jobs()).enqueue(replayIds);

/** Puts an investigation on the queue; a worker runs it on behalf of `by`. */
export async function enqueueInvestigation(id: string, by: string): Promise<void> {
  await (await jobs()).enqueueInvestigations([{ id, by }]);
}
