import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STARTUP_MIGRATION_LOCK, applyMigrationsInTurn } from "./schema-engine";
import { loadDemoData, seedDemoData } from "@/lib/server/sessions/demo-data";
import { ensureStartupData } from "./startup";
import { createTestDatabase, type TestDatabase } from "./testing";

describe("start-up on the embedded database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    await loadDemoData(db.prisma);
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function runningReplay() {
    const session = await db.prisma.session.findFirstOrThrow({ select: { id: true } });
    return db.prisma.replay.create({
      data: { sessionId: session.id, policySnapshot: {}, policyHash: "h", status: "running" },
      select: { id: true },
    });
  }

  it("leaves a replay a stopped server left running to the job queue (it resumes, it is not marked failed) and loads no demo data twice", async () => {
    const sessionsBefore = await db.prisma.session.count();
    const { id } = await runningReplay();
    await ensureStartupData(db.prisma);
    const result = await seedDemoData(db.prisma);
    const replay = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    expect(replay.status).toBe("running");
    expect(replay.error).toBeNull();
    expect(result.demoSessions).toBe(0);
    expect(await db.prisma.session.count()).toBe(sessionsBefore);
  });
});

describe("start-up beside another process that is migrating the same PostgreSQL database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("waits its turn past the engine's 10 s lock wait instead of failing, then finds nothing to apply", async () => {
    // Another Branchpoint process, 12 s into its migrations: it holds the start-up lock and Prisma's own.
    const other = new pg.Client(db.pgConfig!);
    await other.connect();
    await other.query("SELECT pg_advisory_lock($1), pg_advisory_lock(72707369)", [STARTUP_MIGRATION_LOCK]);
    const finished = setTimeout(() => void other.end(), 12_000);
    try {
      const started = Date.now();
      expect(await applyMigrationsInTurn(new PrismaPg(db.pgConfig!), db.pgConfig!)).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
    } finally {
      clearTimeout(finished);
      await other.end().catch(() => undefined);
    }
  }, 60_000);

  it("gives up with a sentence saying why once its patience runs out", async () => {
    const other = new pg.Client(db.pgConfig!);
    await other.connect();
    await other.query("SELECT pg_advisory_lock($1)", [STARTUP_MIGRATION_LOCK]);
    try {
      await expect(applyMigrationsInTurn(new PrismaPg(db.pgConfig!), db.pgConfig!, 1000)).rejects.toThrow(
        "Another process has been applying database migrations for over 1 s; start this one again once it has finished.",
      );
    } finally {
      await other.end();
    }
  });
});
