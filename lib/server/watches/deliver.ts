/**
 * A trigger's webhook: a POST of JSON with Slack's `text` and the structured facts, to a URL that passed the
 * executors' allow-list and address checks when the watch was saved and passes them again now (a host taken off
 * the list since, or a name that now resolves to a private address, is refused and not retried). A failure (no
 * answer, or not 2xx) is tried again after a backoff that doubles, up to WEBHOOK_ATTEMPTS; every attempt is logged.
 *
 * What a receiver is guaranteed. Every POST of a trigger carries `Idempotency-Key: <trigger id>`, the same for all
 * its attempts. An attempt is recorded as `sending` before its POST, and a job delivered twice finds it recorded and
 * does not send it again: each attempt is POSTed once, with one exception. A worker that stops between the POST and
 * recording the answer leaves the attempt `sending` with its outcome unknown; once it has been sending for longer
 * than SENDING_STALE_MS (three times the POST's timeout, so never while that POST can still be in flight) the sweep,
 * or the job delivered again, sends it again with the same key and the attempt's log says so (its note). So a
 * trigger reaches a receiver more than once only as a retry after a failed attempt or as a re-send the log names,
 * always with the same Idempotency-Key: a receiver that drops a key it has seen gets each trigger once. Never a
 * silent double post.
 */
import type { Db } from "@/lib/db";
import { allowedHosts } from "@/lib/db/executors";
import {
  SENDING_STALE_MS,
  deliveryAttempts,
  findTrigger,
  finishDelivery,
  recordSending,
  takeOverSending,
} from "@/lib/db/watches";
import { OutboundRefused, safeRequest, type Resolver } from "@/lib/executors/outbound";
import { presentWatch } from "./watch-inputs";

export const WEBHOOK_ATTEMPTS = 5;
/** SENDING_STALE_MS (lib/db/watches.ts) is three times this. */
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

/** The note on an attempt sent again after its first send's outcome was lost. */
export const RESENT_NOTE =
  "Sent again with the same Idempotency-Key: the worker that sent it first stopped before recording the answer, so the receiver may have had it twice.";

type Next = { attempt: number; delayMs: number } | null;

/**
 * Takes attempt `attempt` to send: its row's id once recorded as sending by this call (or taken over from a worker
 * that stopped mid-send), else what the job does instead: nothing (the attempt, or the trigger, is done) or look
 * again once a send in flight elsewhere would have timed out.
 */
async function takeAttempt(
  prisma: Db,
  target: { watchId: string; triggerId: string },
  attempt: number,
  now: Date,
): Promise<{ id: string } | { next: Next }> {
  for (let tries = 0; tries < 2; tries++) {
    const done = await deliveryAttempts(prisma, target.triggerId);
    if (done.some((d) => d.status === "delivered" || d.status === "refused")) return { next: null };
    const mine = done.find((d) => d.attempt === attempt);
    if (!mine) {
      if (await recordSending(prisma, { ...target, attempt, at: now })) {
        const row = (await deliveryAttempts(prisma, target.triggerId)).find((d) => d.attempt === attempt);
        if (row) return { id: row.id };
      }
      continue;
    }
    if (mine.status !== "sending") return { next: null };
    const left = mine.at.getTime() + SENDING_STALE_MS - now.getTime();
    if (left > 0) return { next: { attempt, delayMs: left } };
    if (await takeOverSending(prisma, mine.id, mine.at, now, RESENT_NOTE)) return { id: mine.id };
  }
  return { next: { attempt, delayMs: SENDING_STALE_MS } };
}

/**
 * Makes one attempt (recorded as sending before its POST, so a job delivered twice sends it once; see the guarantee
 * above). Answers the next attempt's number and wait when this one failed and attempts are left, the same attempt
 * when another worker's send of it may still be in flight, else null.
 */
export async function deliverAttempt(
  prisma: Db,
  triggerId: string,
  attempt: number,
  opts: { resolve?: Resolver; backoffMs?: number; now?: Date } = {},
): Promise<Next> {
  const target = await webhookBody(prisma, triggerId);
  if (!target?.url) return null;
  const taken = await takeAttempt(prisma, { watchId: target.watchId, triggerId }, attempt, opts.now ?? new Date());
  if ("next" in taken) return taken.next;
  const log = (status: "delivered" | "failed" | "refused", httpStatus: number | null, error: string | null) =>
    finishDelivery(prisma, taken.id, { status, httpStatus, error, at: new Date() });
  try {
    const answer = await safeRequest(
      new URL(target.url),
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Branchpoint-Watch",
          "idempotency-key": triggerId,
        },
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
