import { env } from "@/lib/env";
import { registerEnvApiKey } from "./api-keys";
import type { Db } from "./client";
import { backfillClusters } from "./clusters";
import { compactStoredInputs } from "./compact-stored";
import { backfillCosts, seedDefaultPrices } from "./prices";
import { backfillOutcomes } from "./session-outcomes";

/**
 * Run at every opening of the database: the environment's API key, and runs stored before model inputs were
 * stored once put in the compact form, and sessions stored before outcomes were given theirs, and
 * sessions stored before failure clusters put in theirs, the shipped prices added and sessions' costs worked out
 * (each a no-op once done). The demo data on a first start is the server's
 * start-up's (lib/server/sessions/demo-data.ts, from instrumentation.ts).
 */
// Work a stopped server left running is not marked failed here: it resumes by itself (lib/jobs).
export async function ensureStartupData(prisma: Db): Promise<void> {
  await registerEnvApiKey(prisma, env().BRANCHPOINT_API_KEY);
  await compactStoredInputs(prisma);
  await backfillOutcomes(prisma);
  await backfillClusters(prisma);
  // The shipped prices a database lacks (lib/prices/defaults.ts), then every session whose cost is not worked out.
  await seedDefaultPrices(prisma);
  await backfillCosts(prisma);
}
