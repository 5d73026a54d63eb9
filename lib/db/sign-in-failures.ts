import type { DbClient } from "./client";

/**
 * The per-account sign-in limit's counts (the SignInFailure table). Keyed by
 * the email as typed, lower-cased, whether or not an account has it: an
 * unknown email locks exactly as a known one does, so a lockout tells nothing
 * about which emails exist.
 */

/** Failures allowed before the account is locked; each one past it doubles the lock, up to the cap. */
export const SIGN_IN_FAILURES_FREE = 5;
export const SIGN_IN_LOCK_FIRST_SECONDS = 30;
export const SIGN_IN_LOCK_MAX_SECONDS = 15 * 60;
/** A spell this long without a failure starts the count over. */
export const SIGN_IN_FAILURES_RESET_SECONDS = 60 * 60;

/** How long the account is locked after its `failures`-th consecutive failure (0: not locked). */
export function signInLockSeconds(failures: number): number {
  if (failures < SIGN_IN_FAILURES_FREE) return 0;
  return Math.min(SIGN_IN_LOCK_MAX_SECONDS, SIGN_IN_LOCK_FIRST_SECONDS * 2 ** (failures - SIGN_IN_FAILURES_FREE));
}

/** When the email is locked until, if it is locked now. */
export async function signInLockedUntil(client: DbClient, email: string, now = new Date()): Promise<Date | null> {
  const row = await client.signInFailure.findUnique({ where: { email }, select: { lockedUntil: true } });
  return row?.lockedUntil && row.lockedUntil > now ? row.lockedUntil : null;
}

/**
 * Counts one failure in one statement (every web process may be counting the
 * same email at once) and locks the email when the count calls for it.
 * Returns the count and the lock it set, if any.
 */
export async function recordSignInFailure(
  client: DbClient,
  email: string,
  now = new Date(),
): Promise<{ failures: number; lockedUntil: Date | null }> {
  const staleBefore = new Date(now.getTime() - SIGN_IN_FAILURES_RESET_SECONDS * 1000);
  const rows = await client.$queryRaw<{ failures: number }[]>`
    INSERT INTO "SignInFailure" ("email", "failures", "lastFailureAt", "lockedUntil")
    VALUES (${email}, 1, ${now}, NULL)
    ON CONFLICT ("email") DO UPDATE SET
      "failures" = CASE WHEN "SignInFailure"."lastFailureAt" < ${staleBefore} THEN 1 ELSE "SignInFailure"."failures" + 1 END,
      "lastFailureAt" = ${now}
    RETURNING "failures"`;
  const failures = Number(rows[0]!.failures);
  const seconds = signInLockSeconds(failures);
  if (seconds === 0) return { failures, lockedUntil: null };
  const lockedUntil = new Date(now.getTime() + seconds * 1000);
  // Never shortens a longer lock another process set a moment ago.
  await client.signInFailure.updateMany({
    where: { email, OR: [{ lockedUntil: null }, { lockedUntil: { lt: lockedUntil } }] },
    data: { lockedUntil },
  });
  return { failures, lockedUntil };
}

/** A successful sign-in clears the email's count. */
export async function clearSignInFailures(client: DbClient, email: string): Promise<void> {
  await client.signInFailure.deleteMany({ where: { email } });
}
