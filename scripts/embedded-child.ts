/**
 * A stand-in for `npm start` on the embedded database, for the fault tests:
 * opens the PGlite folder given as the first argument (taking its lock, as the
 * server does) and runs the job workers in process until it is killed, or,
 * with `--until-idle`, until no replay is queued or running (then it closes
 * the folder and exits, so the test can open it).
 */
import { openDatabase } from "@/lib/db/client";
import { startJobs } from "@/lib/jobs/queue";
import { jobHandlers } from "@/lib/server/job-handlers";

const dir = process.argv[2];
if (!dir) throw new Error("usage: embedded-child.ts <data dir> [--until-idle]");
const db = await openDatabase({ dir, url: "" });
const jobs = await startJobs(db, { work: true, handlers: jobHandlers });
console.log(`embedded worker ready: ${jobs.workers.length} worker(s), pid ${process.pid}`);
if (process.argv.includes("--until-idle")) {
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const busy = await db.prisma.replay.count({ where: { status: { in: ["queued", "running"] } } });
    if (busy === 0) break;
  }
  await jobs.stop();
  await db.close();
  console.log("embedded worker idle");
  process.exit(0);
}
