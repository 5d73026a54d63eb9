/**
 * `npm run worker`: a worker process. Runs replays (new ones, resumes,
 * experiment members) from the job queue of the PostgreSQL at DATABASE_URL;
 * start as many as you like, on as many machines. BRANCHPOINT_WORKER_CONCURRENCY
 * replays at once per process (default 2). Stops cleanly on SIGTERM/SIGINT:
 * the replays it runs finish first; a worker killed outright loses its leases
 * and other workers take its replays over.
 */
import { openDatabase } from "@/lib/db/client";
import { jobSettings, startJobs } from "@/lib/jobs/queue";
import { jobHandlers } from "@/lib/server/job-handlers";
import { plugJobQueue } from "@/lib/server/job-queue";

async function main() {
  if (!process.env.DATABASE_URL) {
    console.error(
      "npm run worker needs DATABASE_URL=postgres://… (a PostgreSQL server that web servers and workers share).\n" +
        "On the embedded database, `npm start` runs the workers inside the server process; nothing else to start.",
    );
    process.exit(2);
  }
  const settings = jobSettings();
  const db = await openDatabase();
  const jobs = await startJobs(db, { work: true, handlers: jobHandlers, ...settings });
  // Work a job starts goes on the queue too, not run in the job.
  plugJobQueue(jobs);
  console.log(
    `Branchpoint worker ${process.pid}: ${settings.concurrency} at once on ${db.location}, lease ${settings.leaseMs / 1000} s, ${settings.maxAttempts} attempts`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Branchpoint worker ${process.pid}: ${signal}, finishing the replays it runs…`);
    await jobs.stop();
    await db.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
