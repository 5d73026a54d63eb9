import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appErrorFromDatabase } from "@/lib/db/errors";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { openDatabase } from "./client";
import { DataDirLockedError } from "./lock";
import { getSession, sessionFacets, toSessionEvent } from "./session-reads";
import { listSessions } from "./session-list";
import { saveImportedSessions } from "./session-save";
import { demoDocuments } from "@/lib/server/sessions/demo-data";
import { TEST_ENGINES, createTestDatabase, migratedDataDir, type TestDatabase } from "./testing";

async function demoSessions(): Promise<ImportedSession[]> {
  const out: ImportedSession[] = [];
  for (const { text, file } of await demoDocuments()) {
    const result = importDocument(text, { filename: path.basename(file) });
    if (!result.ok) throw new Error(`${file}: ${JSON.stringify(result.issues.slice(0, 2))}`);
    out.push(...result.sessions);
  }
  return out;
}

describe.each(TEST_ENGINES)("sessions on %s", (engine) => {
  let db: TestDatabase;
  let sessions: ImportedSession[];

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    sessions = await demoSessions();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("imports every demo session in one transaction, with events in order and derived identities", async () => {
    const saved = await saveImportedSessions(db.prisma, sessions);
    expect(saved).toHaveLength(sessions.length);
    expect(saved.every((s) => !s.duplicate)).toBe(true);
    const tau150 = sessions.findIndex((s) => s.externalId?.includes("task-0") && s.externalId.includes("trial-3"));
    expect(tau150).toBeGreaterThanOrEqual(0);
    const stored = await getSession(db.prisma, saved[tau150]!.id);
    const events = stored!.events.map(toSessionEvent);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events).toEqual(sessions[tau150]!.events);
  });

  it("re-importing the same source writes nothing and answers with the existing ids", async () => {
    const before = await db.prisma.event.count();
    const again = await saveImportedSessions(db.prisma, sessions.slice(0, 3));
    expect(again.every((s) => s.duplicate)).toBe(true);
    expect(await db.prisma.event.count()).toBe(before);
  });

  it("a write that fails half-way leaves nothing behind", async () => {
    const sessionsBefore = await db.prisma.session.count();
    const agentsBefore = await db.prisma.agent.count();
    const good = {
      ...sessions[0]!,
      externalId: "fresh-1",
      agent: { name: "brand-new-agent", adapter: "generic" as const },
    };
    const clash = { ...sessions[1]!, externalId: "fresh-2" };
    // Two events with the same seq violate (sessionId, seq): the second session's insert fails.
    clash.events = [clash.events[0]!, { ...clash.events[0]! }];
    await expect(saveImportedSessions(db.prisma, [good, clash])).rejects.toThrow();
    expect(await db.prisma.session.count()).toBe(sessionsBefore);
    expect(await db.prisma.agent.count()).toBe(agentsBefore);
  });

  it("text the database cannot store (U+0000) is bad input: a 400 naming it, and nothing written", async () => {
    const before = await db.prisma.session.count();
    const withNul = { ...sessions[0]!, externalId: "nul-1" };
    withNul.events = withNul.events.map((e, i) => (i === 0 ? { ...e, output: "before\u0000after" } : e));
    const error: unknown = await saveImportedSessions(db.prisma, [withNul]).catch((e: unknown) => e);
    const mapped = appErrorFromDatabase(error);
    expect(mapped?.status).toBe(400);
    expect(mapped?.code).toBe("unstorable_text");
    expect(await db.prisma.session.count()).toBe(before);
  });

  it("lists newest first with a cursor, and filters by agent, status, tool and text", async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listSessions(db.prisma, { limit: 3, cursor });
      all.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(all).size).toBe(sessions.length);

    const byTool = await listSessions(db.prisma, { tool: "book_reservation" });
    expect(byTool.sessions.length).toBeGreaterThan(0);
    expect(byTool.sessions.every((s) => s.toolNames.includes("book_reservation"))).toBe(true);

    const facets = await sessionFacets(db.prisma);
    const agent = facets.agents.find((a) => a.name.startsWith("tau-bench"))!.name;
    const byAgent = await listSessions(db.prisma, { agent });
    expect(byAgent.sessions).toHaveLength(sessions.filter((s) => s.agent.name === agent).length);

    const byText = await listSessions(db.prisma, { q: "REFUND" });
    expect(byText.sessions.some((s) => s.title?.toLowerCase().includes("refund"))).toBe(true);
    expect((await listSessions(db.prisma, { q: "zzz-nothing-zzz" })).sessions).toEqual([]);

    // "failed": the recording ended on an error, or the run failed its task (its outcome).
    const failed = await listSessions(db.prisma, { status: "failed" });
    expect(failed.sessions.length).toBeGreaterThan(0);
    expect(failed.sessions.every((s) => s.status === "failed" || s.outcome === "failed")).toBe(true);
  });
});

describe("the embedded database's folder lock", () => {
  it("refuses a second process on the same folder, naming the holder", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-lock-"));
    try {
      // Another live process (our parent) holds the lock.
      writeFileSync(
        path.join(dir, "branchpoint.lock"),
        JSON.stringify({ pid: process.ppid, startedAt: "2026-01-01T00:00:00Z", command: "next start" }),
      );
      const error = await openDatabase({ dir, url: "" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as Error).message).toContain(`process ${process.ppid}`);
      expect((error as Error).message).toContain("BRANCHPOINT_DATA_DIR");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes over a lock left by a process that is gone, and releases it on close", async () => {
    // A migrated copy: a new folder would first run every migration (over a minute in a loaded run).
    const dir = await migratedDataDir();
    try {
      writeFileSync(
        path.join(dir, "branchpoint.lock"),
        JSON.stringify({ pid: 2 ** 22 + 7, startedAt: "", command: "" }),
      );
      const db = await openDatabase({ dir, url: "" });
      expect((JSON.parse(readFileSync(path.join(dir, "branchpoint.lock"), "utf8")) as { pid: number }).pid).toBe(
        process.pid,
      );
      await db.close();
      expect(() => readFileSync(path.join(dir, "branchpoint.lock"))).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
