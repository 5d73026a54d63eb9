import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionEventRows } from "./session-reads";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

// A run reads its base session's events on the driver (sessionEventRows), naming the Event columns itself. A column
// added to Event and not to that list would be missing from every run, and nothing else would fail: this holds the
// driver's rows equal to the client's own read of the same events, every column set.

describe.each(TEST_ENGINES)("a session's event rows read on the driver, on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  it("are the rows the client reads: every column, the same values and types", async () => {
    const agent = await db.prisma.agent.create({ data: { name: "columns", adapter: "native" } });
    const version = await db.prisma.agentVersion.create({
      data: { agentId: agent.id, version: "v1", capabilities: [] },
    });
    const session = await db.prisma.session.create({
      data: {
        agentId: agent.id,
        agentVersionId: version.id,
        format: "native",
        status: "completed",
        eventCount: 2,
        modelCallCount: 2,
        toolCallCount: 0,
        errorCount: 0,
        toolNames: [],
      },
    });
    // Every column set (none null), so that a value the driver reads as another type than the client shows.
    const full = (seq: number) => ({
      sessionId: session.id,
      seq,
      kind: "model_call",
      name: "gpt-test",
      input: { messages: [{ role: "user", content: `turn ${seq} é \u{1F600}` }] },
      output: { role: "assistant", content: "ok", big: 12345678901234 },
      error: { message: "none", nested: [1, null, true] },
      status: "completed",
      startedAt: new Date(Date.UTC(2026, 11, 4, 10, 0, seq, 123)),
      durationMs: 1500 + seq,
      inputTokens: 100,
      cachedInputTokens: 40,
      cacheWriteInputTokens: 10,
      outputTokens: 20,
      costUsd: 0.00125,
      parentSeq: 0,
      cacheKey: `key-${seq}`,
      occurrence: seq,
      inputPrefixSeq: 0,
      inputPrefixCount: 1,
      inputDigest: `digest-${seq}`,
    });
    await db.prisma.event.createMany({ data: [full(1), full(2)] });

    const viaClient = await db.prisma.event.findMany({ where: { sessionId: session.id }, orderBy: { seq: "asc" } });
    const viaDriver = [];
    for await (const row of sessionEventRows(db.prisma, session.id)) viaDriver.push(row);

    expect(viaClient).toHaveLength(2);
    for (const row of viaClient) expect(Object.entries(row).filter(([, v]) => v === null)).toEqual([]);
    // The same keys (a column the driver's list lacks, or one it has that the client does not read) and values.
    expect(viaDriver.map((r) => Object.keys(r).sort())).toEqual(viaClient.map((r) => Object.keys(r).sort()));
    expect(viaDriver).toEqual(viaClient);
  });
});
