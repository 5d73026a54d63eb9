import { route } from "@/lib/http/route";
import { listJobs, presentJobs } from "@/lib/server/jobs/jobs";

export const dynamic = "force-dynamic";

/** Admin: `{ jobs: { counts: { queued, running, failed }, queued: [...], running: [...], failed: [...] } }`: replays, investigations and smallest-fix searches. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) => {
  return Response.json({ jobs: presentJobs(await listJobs(principal, {}, prisma)) });
});
