import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStartupData, loadDemoData } from "./startup";
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
    const result = await ensureStartupData(db.prisma);
    const replay = await db.prisma.replay.findUniqueOrThrow({ where: { id } });
    expect(replay.status).toBe("running");
    expect(replay.error).toBeNull();
    expect(result.demoSessions).toBe(0);
    expect(await db.prisma.session.count()).toBe(sessionsBefore);
  });
});
