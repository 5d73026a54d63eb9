/**
 * Runs once when the server starts: opens the database (migrations, demo data
 * on a first start) before the first request, so a locked data folder fails
 * the start rather than a page.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { openAtStartup } = await import("@/lib/db/startup-hook");
    await openAtStartup();
  }
}
