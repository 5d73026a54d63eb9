/**
 * The job queue of this process (the web server's), started once by
 * instrumentation.ts and kept on globalThis like the database. It runs workers
 * in process on the embedded database (the quick start needs nothing else),
 * and on PostgreSQL unless BRANCHPOINT_WORKERS=external leaves the work to
 * `npm run worker`.
 */
import { database } from "@/lib/db/database";
import { runsWorkersInProcess, startJobs, type JobHandlers, type Jobs } from "./queue";
import { plural } from "@/lib/format";

const globalForJobs = globalThis as unknown as { __branchpointJobs?: Promise<Jobs> };

/** Starts the queue (once), its workers running `handlers`; a second call answers the first's queue. */
export function startJobRuntime(handlers: JobHandlers): Promise<Jobs> {
  globalForJobs.__branchpointJobs ??= (async () => {
    const db = await database();
    const work = runsWorkersInProcess(db);
    const started = await startJobs(db, { work, handlers });
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

/** The queue started at start-up (the jobs page reads its workers). */
export function jobs(): Promise<Jobs> {
  return (
    globalForJobs.__branchpointJobs ??
    Promise.reject(new Error("The job queue is not started: instrumentation.ts starts it with the server."))
  );
}
