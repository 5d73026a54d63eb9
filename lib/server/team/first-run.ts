import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { prepareFirstRun } from "./team";

/** At start, with no account: the unattended admin, or the setup link printed for the person who started the server. */
export async function announceFirstRun(): Promise<void> {
  const first = await prepareFirstRun(await db());
  if (first.createdAdmin) {
    console.log(`Branchpoint: created the first admin, ${first.createdAdmin} (BRANCHPOINT_ADMIN_EMAIL).`);
  }
  if (first.setupToken) {
    const base = (env().BRANCHPOINT_PUBLIC_URL ?? `http://127.0.0.1:${process.env.PORT ?? "3000"}`).replace(/\/$/, "");
    console.log(
      `\nBranchpoint: no account exists yet. Open this link to create the first admin (it works once):\n\n    ${base}/setup?token=${first.setupToken}\n`,
    );
  }
}
