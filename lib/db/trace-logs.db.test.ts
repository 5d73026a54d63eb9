/**
 * OTLP log records' keeping, on both engines: the sweep's pruneTraceLogs deletes those received before the
 * cut-off (in batches), and keeps the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";
import { prismaSql } from "./sql";
import { insertTraceLogs, pruneTraceLogs, traceLogRows } from "./trace-logs";

const event = (traceId: string, spanId: string, name: string) => ({
  traceId,
  spanId,
  event: { name, timeUnixNano: "1700000000000000000", attributes: {} },
  path: "",
});

describe.each(TEST_ENGINES)("OTLP log records kept on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("deletes the records received before the cut-off, in batches, and keeps the later ones", async () => {
    const sql = prismaSql(db.prisma);
    const stored = await insertTraceLogs(sql, [
      event("t1", "s1", "gen_ai.user.message"),
      event("t1", "s1", "gen_ai.choice"),
      event("t1", "s2", "gen_ai.user.message"),
      event("t2", "s3", "gen_ai.choice"),
    ]);
    expect(stored).toBe(4);
    // Three of them arrived 40 days ago, one just now.
    await db.prisma.$executeRaw`
      UPDATE "TraceLog" SET "receivedAt" = now() - interval '40 days' WHERE NOT ("traceId" = 't1' AND "spanId" = 's2')`;
    const cutOff = new Date(Date.now() - 30 * 86_400_000);
    expect(await pruneTraceLogs(db.prisma, cutOff, 2)).toBe(3);
    expect(await traceLogRows(sql, ["t1", "t2"])).toEqual([
      { traceId: "t1", spanId: "s2", event: JSON.stringify(event("t1", "s2", "gen_ai.user.message").event) },
    ]);
    expect(await pruneTraceLogs(db.prisma, cutOff, 2)).toBe(0);
  });
});
