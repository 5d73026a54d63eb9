import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replay, type Policy } from "@/lib/replay";
import { importLongChat, storedRun } from "./replays-testing";
import { sessionEventsCompact } from "./session-reads";
import { MIGRATIONS_DIR } from "./schema-engine";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

const MIGRATION = path.join(MIGRATIONS_DIR, "20261201001000_replay_content_digests", "migration.sql");
const policy: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

type DigestRow = { key: number; kind: string; outputDigest: string | null; plainInputDigest: string | null };

describe.each(TEST_ENGINES)("the digests a comparison reads instead of outputs and tool inputs, on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let replayId: string;
  const digests = async (): Promise<{ events: DigestRow[]; steps: DigestRow[] }> => ({
    events: await db.prisma.$queryRaw<DigestRow[]>`
      SELECT seq AS key, kind, "outputDigest", "plainInputDigest" FROM "Event" WHERE "sessionId" = ${sessionId} ORDER BY seq`,
    steps: await db.prisma.$queryRaw<DigestRow[]>`
      SELECT idx AS key, kind, "outputDigest", "plainInputDigest" FROM "ReplayStep" WHERE "replayId" = ${replayId} ORDER BY idx`,
  });

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    ({ sessionId } = await importLongChat(db.prisma, 5));
    const run = await replay({ base: await sessionEventsCompact(db.prisma, sessionId), policy, inputs: "compact" });
    replayId = await storedRun(db.prisma, sessionId, policy, run);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("are written by the database with every row: equal JSON gives equal digests, a model call's input none", async () => {
    const { events, steps } = await digests();
    // Replayed under the recorded policy, every step holds what its base event holds.
    expect(steps.map((s) => [s.key, s.kind, s.outputDigest, s.plainInputDigest])).toEqual(
      events.map((e) => [e.key, e.kind, e.outputDigest, e.plainInputDigest]),
    );
    expect(events.filter((e) => e.kind === "tool_call").every((e) => /^[0-9a-f]{32}$/.test(e.plainInputDigest!))).toBe(
      true,
    );
    expect(events.filter((e) => e.kind === "model_call").map((e) => e.plainInputDigest)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(events.every((e) => /^[0-9a-f]{32}$/.test(e.outputDigest!))).toBe(true);
    // Different outputs, different digests.
    expect(new Set(events.map((e) => e.outputDigest)).size).toBe(events.length);

    // Written again: the same JSON with its keys in another order keeps its digest; another value changes it;
    // JSON null and no value have none.
    const tool = events.find((e) => e.kind === "tool_call")!;
    const row = await db.prisma.event.findUniqueOrThrow({ where: { sessionId_seq: { sessionId, seq: tool.key } } });
    const reordered = Object.fromEntries(Object.entries(row.input as object).reverse());
    await db.prisma.event.update({ where: { id: row.id }, data: { input: reordered, output: "other" } });
    const [again] = (await digests()).events.filter((e) => e.key === tool.key);
    expect(again!.plainInputDigest).toBe(tool.plainInputDigest);
    expect(again!.outputDigest).not.toBe(tool.outputDigest);
    await db.prisma.$executeRaw`UPDATE "Event" SET output = 'null'::jsonb, input = NULL WHERE id = ${row.id}`;
    const [cleared] = (await digests()).events.filter((e) => e.key === tool.key);
    expect([cleared!.outputDigest, cleared!.plainInputDigest]).toEqual([null, null]);
  });

  it("are computed for the rows stored before the migration added them", async () => {
    const before = await digests();
    await db.prisma.$executeRawUnsafe(`ALTER TABLE "Event" DROP COLUMN "outputDigest", DROP COLUMN "plainInputDigest"`);
    await db.prisma.$executeRawUnsafe(
      `ALTER TABLE "ReplayStep" DROP COLUMN "outputDigest", DROP COLUMN "plainInputDigest"`,
    );
    // The migration as the schema engine runs it: statement by statement.
    const statements = readFileSync(MIGRATION, "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean);
    expect(statements).toHaveLength(2);
    for (const sql of statements) await db.prisma.$executeRawUnsafe(sql);
    expect(await digests()).toEqual(before);
  });
});
