/**
 * Pacing a connector's requests to its platform's documented rate limit, so a pull does not meet a 429 in the
 * first place (a 429 with Retry-After is still obeyed: ./http.ts). One token bucket per connector, shared by the
 * pulls of that connector in this process. A bucket of `burst` tokens refilled at (limit − burst) per window never
 * lets more than `limit` requests through in any window.
 *
 * Only the platforms' own cloud hosts are paced: a self-hosted Langfuse, LangSmith or Phoenix has the limits its
 * operator gives it (none documented).
 */
import { setTimeout as sleep } from "node:timers/promises";

/** A documented limit: at most `limit` requests per `windowMs`, on the hosts it applies to. */
export type RateLimit = { hosts: RegExp; limit: number; windowMs: number; burst: number };

export const RATE_LIMITS: Record<string, RateLimit> = {
  // https://langfuse.com/faq/all/api-limits: "API. All other APIs" (the public traces and observations reads),
  // per organization: 30 req/min on Hobby, 100 on Core, 1,000 on Pro/Team/Enterprise. The plan is not known here,
  // so the lowest. Self-hosted: "No hard limits".
  langfuse: { hosts: /(^|\.)langfuse\.com$/i, limit: 30, windowMs: 60_000, burst: 5 },
  // https://docs.smith.langchain.com/concepts/usage_and_billing/rate_limits: per API key, any endpoint ("* *")
  // 2000 per 1 minute (POST /api/v1/runs/query is one of them).
  langsmith: { hosts: /(^|\.)smith\.langchain\.com$/i, limit: 2000, windowMs: 60_000, burst: 50 },
  // Phoenix (self-hosted or Arize's cloud) and Braintrust document no request rate for the reads a pull makes
  // (Braintrust's knowledge base, https://www.braintrust.dev/docs/kb/use-s3-export-instead-of-polling-btql-for-pipelines,
  // says /btql has a rate limit and to pace queries, without a figure): their 429s are obeyed as they come.
};

/** The clock a bucket reads and waits on (a test gives its own). */
export type Clock = { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> };

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};

/** A token bucket: `take` waits until a token is there, then spends it. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  /** Milliseconds a token takes to come back. */
  private readonly perToken: number;
  /** Takes waiting their turn, so each waits after the one before (first come, first served). */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly limit: Pick<RateLimit, "limit" | "windowMs" | "burst">,
    private readonly clock: Clock = realClock,
  ) {
    if (limit.burst < 1 || limit.burst >= limit.limit) throw new Error("a bucket's burst is from 1 to below its limit");
    this.tokens = limit.burst;
    this.last = clock.now();
    this.perToken = limit.windowMs / (limit.limit - limit.burst);
  }

  /** Waits for a token (aborted with `signal`); answers how long it waited (ms). */
  take(signal?: AbortSignal): Promise<number> {
    const turn = this.queue.then(() => this.spend(signal));
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  private async spend(signal?: AbortSignal): Promise<number> {
    let waited = 0;
    for (;;) {
      const now = this.clock.now();
      this.tokens = Math.min(this.limit.burst, this.tokens + (now - this.last) / this.perToken);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return waited;
      }
      const ms = Math.ceil((1 - this.tokens) * this.perToken);
      await this.clock.sleep(ms, signal);
      waited += ms;
    }
  }
}

const buckets = new Map<string, { key: string; bucket: TokenBucket }>();

/**
 * The bucket a connector's requests share, or null when its platform documents no limit for its host. A connector
 * whose base URL or kind changed gets a new one.
 */
export function pacerFor(connector: { id: string; kind: string; baseUrl: string }, clock: Clock = realClock) {
  const limit = RATE_LIMITS[connector.kind];
  let host: string;
  try {
    host = new URL(connector.baseUrl).hostname;
  } catch {
    return null;
  }
  if (!limit || !limit.hosts.test(host)) return null;
  const key = `${connector.kind} ${host}`;
  const held = buckets.get(connector.id);
  if (held?.key === key) return held.bucket;
  const bucket = new TokenBucket(limit, clock);
  buckets.set(connector.id, { key, bucket });
  return bucket;
}
