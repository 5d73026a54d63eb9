/**
 * Runs once when the server starts: opens the database (migrations, demo data
 * on a first start) before the first request, so a locked data folder fails
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
    const { announceFirstRun } = await import("@/lib/server/first-run");
    await announceFirstRun();
  }
}
