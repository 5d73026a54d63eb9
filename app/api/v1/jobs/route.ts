import { apiRoute } from "@/lib/http/api";
import { listJobs, presentJobs } from "@/lib/server/jobs/jobs";

export const dynamic = "force-dynamic";

/** Admin: `{ jobs: { counts: { queued, running, failed }, queued: [...], running: [...], failed: [...] } }`. */
export const GET = apiRoute(async ({ prisma, principal }) => {
  return Response.json({ jobs: presentJobs(await listJobs(principal, {}, prisma)) });
});
