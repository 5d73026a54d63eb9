/**
 * Runs once when the server starts: opens the database (migrations), then the
 * demo data on a first start, before the first request, so a locked data folder fails
 * the start rather than a page. With no account yet, it creates the first
 * admin from BRANCHPOINT_ADMIN_EMAIL/PASSWORD or prints a one-time setup link.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // TRACE/TRACK/CONNECT would make Next's proxy adapter throw (a 500): answer 405 before Next.
    const [{ installMethodGuard }, http] = await Promise.all([import("@/lib/http/methods"), import("node:http")]);
    installMethodGuard(http.Server);
    const { openAtStartup } = await import("@/lib/db/startup-hook");
    await openAtStartup();
    // The demo data on a first start (an empty database), unless BRANCHPOINT_DEMO_DATA is off.
    const [{ db }, { seedDemoData }] = await Promise.all([
      import("@/lib/db"),
      import("@/lib/server/sessions/demo-data"),
    ]);
    await seedDemoData(await db()).catch((error: unknown) => {
      console.error(
        `Branchpoint: cannot load the demo data.\n${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(1);
    });
    // The job queue (and, on the embedded database, its workers) starts with the server, so work left queued resumes.
    // lib/jobs is given what runs each job (lib/server); the operations are given the queue they put work on.
    const [{ startJobRuntime }, { jobHandlers }, { plugJobQueue }] = await Promise.all([
      import("@/lib/jobs/runtime"),
      import("@/lib/server/job-handlers"),
      import("@/lib/server/job-queue"),
    ]);
    const queue = await startJobRuntime(jobHandlers).catch((error: unknown) => {
      console.error(
        `Branchpoint: cannot start the job queue.\n${error instanceof Error ? error.message : String(error)}`,
      );
      process.exit(1);
    });
    plugJobQueue(queue);
    const { announceFirstRun } = await import("@/lib/server/team/first-run");
    await announceFirstRun();
  }
}
