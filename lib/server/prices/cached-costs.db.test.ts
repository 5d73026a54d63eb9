/**
 * Prompt-cache reads and writes priced from the table, on both engines: a session whose model calls read
 * tokens from the cache (or write them to it) costs the cached (cache-write) rate for them when the price has
 * one, the input rate when it has none; the
 * import's own pricing (writeSessionCosts), the sweep after a new price (refreshSessionCosts) and the pure
 * rules (lib/prices/prices.ts) give the same micro-dollars, and the count is stored and read back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db";
import { addPriceVersion, backfillCosts, listPriceRows } from "@/lib/db/prices";
import { sessionEvents } from "@/lib/db/session-reads";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { estimateMicros } from "@/lib/prices/prices";
import { importAndSave } from "@/lib/server/ingest/imports";
import { sessionCost } from "@/lib/server/prices/prices";
import { localAdmin } from "@/lib/server/principal";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

/**
 * Two model calls on `model`: 10,000 input tokens of which 8,000 from the cache, then 5,000 of which 4,000;
 * with `writes`, 10,000 of which 2,000 read and 6,000 written, then 5,000 of which 1,000 read and 4,000 written.
 */
function doc(externalId: string, model: string, writes = false): string {
  const call = (seq: number, input: number, cached: number, output: number, written?: number) => ({
    seq,
    kind: "model_call",
    name: model,
    input: { messages: [{ role: "user", content: `question ${seq}` }] },
    output: { role: "assistant", content: `answer ${seq}` },
    status: "completed",
    startedAt: `2025-06-01T00:00:0${seq}.000Z`,
    durationMs: 500,
    usage: {
      inputTokens: input,
      cachedInputTokens: cached,
      ...(written === undefined ? {} : { cacheWriteInputTokens: written }),
      outputTokens: output,
    },
  });
  return JSON.stringify({
    externalId,
    agent: { name: "cache-agent", adapter: "generic" },
    agentVersion: { version: "1", capabilities: [] },
    startedAt: "2025-06-01T00:00:00.000Z",
    endedAt: "2025-06-01T00:00:05.000Z",
    events: writes
      ? [call(0, 10_000, 2_000, 300, 6_000), call(1, 5_000, 1_000, 200, 4_000)]
      : [call(0, 10_000, 8_000, 300), call(1, 5_000, 4_000, 200)],
  });
}

// 15,000 input tokens, 12,000 of them cached (so 3,000 not), 500 output tokens.
// With a cached rate: 3,000 × $2.00 + 12,000 × $0.50 + 500 × $8.00 per M = 6,000 + 6,000 + 4,000 = 16,000 µ$.
// Without one (all input at $2.00): 30,000 + 4,000 = 34,000 µ$.
const WITH_CACHED_RATE = 16_000n;
const WITHOUT_CACHED_RATE = 34_000n;
// With writes: 15,000 input, 3,000 read, 10,000 written (so 2,000 neither), 500 output.
// With a cache-write rate of $2.50: 2,000 × $2.00 + 3,000 × $0.50 + 10,000 × $2.50 + 500 × $8.00 per M
// = 4,000 + 1,500 + 25,000 + 4,000 = 34,500 µ$. Without one (written at $2.00): 4,000 + 1,500 + 20,000 + 4,000.
const WITH_WRITE_RATE = 34_500n;
const WITHOUT_WRITE_RATE = 29_500n;

describe.each(TEST_ENGINES)("cached input tokens priced on %s", (engine) => {
  let db: TestDatabase;

  const importOne = async (text: string) => {
    const result = await importAndSave(db.prisma, text, { format: "native" });
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result.sessions[0]!.id;
  };
  const costOf = async (id: string) => {
    const s = await db.prisma.session.findUniqueOrThrow({
      where: { id },
      select: { costSource: true, costMicros: true },
    });
    return { source: s.costSource, micros: s.costMicros };
  };
  const price = (model: string, cachedInputMicros: number | null, cacheWriteInputMicros: number | null = null) =>
    addPriceVersion(
      db.prisma,
      {
        model,
        match: "prefix",
        validFrom: new Date("2025-01-01T00:00:00Z"),
        inputMicros: 2_000_000,
        outputMicros: 8_000_000,
        cachedInputMicros,
        cacheWriteInputMicros,
      },
      { id: null, name: "test" },
    );

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    global.__branchpointDb = Promise.resolve(db);
  });
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("stores the cached count and reads it back in each step's usage", async () => {
    const id = await importOne(doc("stored", "unpriced-model"));
    const rows = await db.prisma.event.findMany({
      where: { sessionId: id },
      orderBy: { seq: "asc" },
      select: { inputTokens: true, cachedInputTokens: true, outputTokens: true },
    });
    expect(rows).toEqual([
      { inputTokens: 10_000, cachedInputTokens: 8_000, outputTokens: 300 },
      { inputTokens: 5_000, cachedInputTokens: 4_000, outputTokens: 200 },
    ]);
    expect((await sessionEvents(db.prisma, id)).map((e) => e.usage)).toEqual([
      { inputTokens: 10_000, cachedInputTokens: 8_000, outputTokens: 300 },
      { inputTokens: 5_000, cachedInputTokens: 4_000, outputTokens: 200 },
    ]);
  });

  it("prices cached tokens at the cached rate when the price has one, else at the input rate, as the pure rules do", async () => {
    await price("cachey", 500_000);
    await price("plain", null);
    // Priced as each import is saved (the writer's own usage).
    const cachedRate = await importOne(doc("cached-rate", "cachey-2025"));
    const inputRate = await importOne(doc("input-rate", "plain-2025"));
    expect(await costOf(cachedRate)).toEqual({ source: "price_table", micros: WITH_CACHED_RATE });
    expect(await costOf(inputRate)).toEqual({ source: "price_table", micros: WITHOUT_CACHED_RATE });

    // Read back from the stored events (the sweep's path) after the marks: the same figures.
    await db.prisma.session.updateMany({ where: { id: { in: [cachedRate, inputRate] } }, data: { costSource: null } });
    expect(await backfillCosts(db.prisma)).toBeGreaterThanOrEqual(2);
    expect(await costOf(cachedRate)).toEqual({ source: "price_table", micros: WITH_CACHED_RATE });
    expect(await costOf(inputRate)).toEqual({ source: "price_table", micros: WITHOUT_CACHED_RATE });

    // The pure rules agree.
    const rules = await listPriceRows(db.prisma);
    const calls = (model: string) => [{ model, inputTokens: 15_000, cachedInputTokens: 12_000, outputTokens: 500 }];
    const at = new Date("2025-06-01T00:00:00Z");
    expect(estimateMicros(calls("cachey-2025"), rules, at).micros).toBe(WITH_CACHED_RATE);
    expect(estimateMicros(calls("plain-2025"), rules, at).micros).toBe(WITHOUT_CACHED_RATE);

    // The session page's explanation carries the cached part.
    const explained = await sessionCost(localAdmin("a"), cachedRate, db.prisma);
    expect(
      explained.models.map((m) => [
        m.model,
        m.inputTokens,
        m.cachedInputTokens,
        m.outputTokens,
        m.price?.cachedInputUsdPerMTok,
      ]),
    ).toEqual([["cachey-2025", 15_000, 12_000, 500, "$0.50"]]);
  });

  it("prices cache writes at the cache-write rate, else at the input rate, never more than the input leaves", async () => {
    await price("writey", 500_000, 2_500_000);
    await price("writeless", 500_000, null);
    const written = await importOne(doc("write-rate", "writey-1", true));
    const plain = await importOne(doc("no-write-rate", "writeless-1", true));
    const stored = await db.prisma.event.findMany({
      where: { sessionId: written },
      orderBy: { seq: "asc" },
      select: { cacheWriteInputTokens: true },
    });
    expect(stored).toEqual([{ cacheWriteInputTokens: 6_000 }, { cacheWriteInputTokens: 4_000 }]);
    expect((await sessionEvents(db.prisma, written)).map((e) => e.usage?.cacheWriteInputTokens)).toEqual([
      6_000, 4_000,
    ]);
    expect(await costOf(written)).toEqual({ source: "price_table", micros: WITH_WRITE_RATE });
    expect(await costOf(plain)).toEqual({ source: "price_table", micros: WITHOUT_WRITE_RATE });

    // A stored count past what the reads leave of the input (no importer writes one) is held to it: the
    // second call's 99,999 are its 4,000, and the sweep's figures are the import's.
    await db.prisma.event.updateMany({
      where: { sessionId: written, seq: 1 },
      data: { cacheWriteInputTokens: 99_999 },
    });
    await db.prisma.session.updateMany({ where: { id: { in: [written, plain] } }, data: { costSource: null } });
    expect(await backfillCosts(db.prisma)).toBeGreaterThanOrEqual(2);
    expect(await costOf(written)).toEqual({ source: "price_table", micros: WITH_WRITE_RATE });
    expect(await costOf(plain)).toEqual({ source: "price_table", micros: WITHOUT_WRITE_RATE });

    const rules = await listPriceRows(db.prisma);
    const calls = [
      {
        model: "writey-1",
        inputTokens: 15_000,
        cachedInputTokens: 3_000,
        cacheWriteInputTokens: 10_000,
        outputTokens: 500,
      },
    ];
    expect(estimateMicros(calls, rules, new Date("2025-06-01T00:00:00Z")).micros).toBe(WITH_WRITE_RATE);

    const explained = await sessionCost(localAdmin("a"), written, db.prisma);
    expect(
      explained.models.map((m) => [
        m.model,
        m.cachedInputTokens,
        m.cacheWriteInputTokens,
        m.price?.cacheWriteInputUsdPerMTok,
      ]),
    ).toEqual([["writey-1", 3_000, 10_000, "$2.50"]]);
  });
});
