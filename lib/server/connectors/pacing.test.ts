/**
 * Pacing to a platform's documented rate, on an injected clock (no timing): a connector's token bucket lets its
 * burst through, then one request per refill, never more than the limit in any window; the Langfuse client takes
 * a token before every request it sends, its tries again included, against a real server on 127.0.0.1.
 */
import { describe, expect, it } from "vitest";
import { supportTraces } from "@/lib/ingest/__fixtures__/langfuse";
import { LangfuseClient } from "./langfuse-client";
import { pacerFor, RATE_LIMITS, TokenBucket, type Clock } from "./pacing";
import { fakeLangfuse } from "./testing";

/** A clock whose sleeps pass at once, moving its time on; it records each sleep. */
function fakeClock(start = 0) {
  let now = start;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
  return { clock, sleeps, at: () => now };
}

describe("a connector's token bucket", () => {
  it("lets Langfuse's burst through, then one request every 2.4 s: never more than 30 in any minute", async () => {
    const { clock, at } = fakeClock();
    const bucket = new TokenBucket(RATE_LIMITS.langfuse!, clock);
    const times: number[] = [];
    // Asked all at once (two pulls of one connector): served one after the other.
    const waits = await Promise.all(
      Array.from({ length: 70 }, () => bucket.take().then((waited) => (times.push(at()), waited))),
    );
    expect(waits.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 2400]);
    expect(new Set(waits.slice(5))).toEqual(new Set([2400]));
    expect(times.slice(0, 8)).toEqual([0, 0, 0, 0, 0, 2400, 4800, 7200]);
    const most = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
    // Within the limit: 29 in any minute [t, t + 60 s) (the 30th comes at its very end).
    expect(most).toBe(29);
  });

  it("refills while idle, no further than its burst", async () => {
    const { clock, sleeps } = fakeClock();
    const bucket = new TokenBucket({ limit: 10, windowMs: 10_000, burst: 2 }, clock);
    for (let i = 0; i < 3; i++) await bucket.take();
    expect(sleeps).toEqual([1250]);
    await clock.sleep(60_000);
    sleeps.length = 0;
    for (let i = 0; i < 3; i++) await bucket.take();
    expect(sleeps).toEqual([1250]);
  });

  it("is kept per connector on the platform's cloud hosts only, and made again when the connector moves", () => {
    const cloud = { id: "c1", kind: "langfuse", baseUrl: "https://cloud.langfuse.com" };
    const bucket = pacerFor(cloud);
    expect(bucket).toBeInstanceOf(TokenBucket);
    expect(pacerFor(cloud)).toBe(bucket);
    expect(pacerFor({ ...cloud, id: "c2" })).not.toBe(bucket);
    const moved = pacerFor({ ...cloud, baseUrl: "https://us.cloud.langfuse.com" });
    expect(moved).toBeInstanceOf(TokenBucket);
    expect(moved).not.toBe(bucket);
    expect(pacerFor({ id: "c3", kind: "langsmith", baseUrl: "https://eu.api.smith.langchain.com" })).toBeInstanceOf(
      TokenBucket,
    );
    for (const other of [
      { id: "c4", kind: "langfuse", baseUrl: "https://langfuse.internal.example" },
      { id: "c5", kind: "langfuse", baseUrl: "https://evil-langfuse.com" },
      { id: "c6", kind: "phoenix", baseUrl: "https://app.phoenix.arize.com" },
      { id: "c7", kind: "braintrust", baseUrl: "https://api.braintrust.dev" },
    ])
      expect(pacerFor(other)).toBeNull();
  });

  it("paces every request the Langfuse client sends, a try again included", async () => {
    const server = await fakeLangfuse({
      traces: supportTraces(3, "pace"),
      publicKey: "pk",
      secretKey: "sk",
      intercept: (hit) =>
        hit.kind === "trace" && hit.count === 1 && hit.traceId === "pace-001" ? { status: 500 } : undefined,
    });
    try {
      const { clock, sleeps } = fakeClock(Date.now());
      const bucket = new TokenBucket({ limit: 3, windowMs: 60_000, burst: 2 }, clock);
      const client = new LangfuseClient({
        baseUrl: server.url,
        allowed: new Set(["127.0.0.1"]),
        publicKey: "pk",
        secretKey: "sk",
        backoffMs: 1,
        pace: bucket,
      });
      const page = await client.listTraces({}, { page: 1, token: null }, 50);
      for (const id of page.ids) expect((await client.getTrace(id!)).ok).toBe(true);
      // The list, three traces and the 500's try again: five requests, two of the burst and three paced.
      expect(server.hits.map((h) => [h.kind, h.traceId])).toEqual([
        ["list", null],
        ["trace", "pace-000"],
        ["trace", "pace-001"],
        ["trace", "pace-001"],
        ["trace", "pace-002"],
      ]);
      expect(sleeps).toEqual([60_000, 60_000, 60_000]);
    } finally {
      await server.close();
    }
  });
});
