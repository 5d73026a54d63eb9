/**
 * A trigger's webhook: a POST of JSON with Slack's `text` and the structured facts, to a URL that passed the
 * executors' allow-list and address checks when the watch was saved and passes them again now (a host taken off
 * the list since, or a name that now resolves to a private address, is refused and not retried). A failure (no
 * answer, or not 2xx) is tried again after a backoff that doubles, up to WEBHOOK_ATTEMPTS; every attempt is logged.
 */
import type { Db } from "@/lib/db";
import { allowedHosts } from "@/lib/db/executors";
import { deliveryAttempts, findTrigger, logDelivery } from "@/lib/db/watches";
import { OutboundRefused, safeRequest, type Resolver } from "@/lib/executors/outbound";
import { presentWatch } from "./watch-inputs";

export const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_TIMEOUT_MS = 10_000;

/** The first retry's wait (doubled for each next one): BRANCHPOINT_WATCH_BACKOFF_MS, 30 s unless set. */
export function webhookBackoffMs(): number {
  const set = Number(process.env.BRANCHPOINT_WATCH_BACKOFF_MS);
  return Number.isFinite(set) && set >= 0 ? set : 30_000;
}

/** The wait before attempt `next` (2, 3, …): base, 2 × base, 4 × base … */
export const backoffBefore = (next: number, base: number) => base * 2 ** (next - 2);

/** What a webhook receives. */
export async function webhookBody(prisma: Db, triggerId: string) {
  const trigger = await findTrigger(prisma, triggerId);
  if (!trigger) return null;
  const watch = presentWatch(trigger.watch);
  return {
    url: watch.actions.webhook?.url ?? null,
    watchId: watch.id,
    body: {
      text: trigger.text,
      watch: { id: watch.id, name: watch.name, condition: watch.condition },
      agent: { id: watch.agentId, name: watch.agentName },
      trigger: { id: trigger.id, key: trigger.key, firedAt: trigger.firedAt.toISOString() },
      facts: trigger.facts,
    },
  };
}

/**
 * Makes one attempt (a job delivered twice makes it once: the attempt is logged once). Answers the next attempt's
 * number and wait when this one failed and attempts are left, else null.
 */
export async function deliverAttempt(
  prisma: Db,
  triggerId: string,
  attempt: number,
  opts: { resolve?: Resolver; backoffMs?: number } = {},
): Promise<{ attempt: number; delayMs: number } | null> {
  const target = await webhookBody(prisma, triggerId);
  if (!target?.url) return null;
  const done = await deliveryAttempts(prisma, triggerId);
  if (done.some((d) => d.attempt === attempt || d.status === "delivered" || d.status === "refused")) return null;
  const log = (status: "delivered" | "failed" | "refused", httpStatus: number | null, error: string | null) =>
    logDelivery(prisma, { watchId: target.watchId, triggerId, attempt, status, httpStatus, error, at: new Date() });
  try {
    const answer = await safeRequest(
      new URL(target.url),
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Branchpoint-Watch" },
        body: JSON.stringify(target.body),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      },
      await allowedHosts(prisma),
      opts.resolve,
    );
    if (answer.status >= 200 && answer.status < 300) {
      await log("delivered", answer.status, null);
      return null;
    }
    await log("failed", answer.status, `The receiver answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  } catch (error) {
    if (error instanceof OutboundRefused) {
      await log("refused", null, `${error.message} Not retried.`);
      return null;
    }
    await log("failed", null, (error instanceof Error ? error.message : String(error)).slice(0, 500));
  }
  if (attempt >= WEBHOOK_ATTEMPTS) return null;
  return { attempt: attempt + 1, delayMs: backoffBefore(attempt + 1, opts.backoffMs ?? webhookBackoffMs()) };
}
