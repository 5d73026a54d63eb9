import type { Db } from "@/lib/db";
import { failedRunsLead } from "@/lib/db/session-outcomes";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** What the session list opens with when runs failed: how many, and which to investigate first. */
export async function failedRuns(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "sessions.read");
  return failedRunsLead(prisma);
}
