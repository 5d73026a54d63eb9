import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "./policies";
import { searchByName } from "./search";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { createTestDatabase, type TestDatabase } from "./testing";

describe("the command palette's search, on the embedded database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    await loadDemoData(db.prisma);
    await createPolicy(db.prisma, { name: "Refund RCA: recorded tools" });
  });
  afterAll(async () => {
    await db.drop();
  });

  it("finds a session by part of its title, case-insensitively, and links to it", async () => {
    const hits = await searchByName(db.prisma, "TASK 0, TRIAL 3");
    const sessions = hits.filter((h) => h.kind === "session");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.label).toContain("task 0, trial 3");
    expect(sessions[0]!.href).toBe(`/sessions/${sessions[0]!.id}`);
    expect(hits.filter((h) => h.kind !== "session")).toEqual([]);
  });

  it("tells runs with one title apart: each hit says when it started and its source's id", async () => {
    const rows = await db.prisma.session.findMany({ select: { id: true, startedAt: true, externalId: true } });
    const hits = (await searchByName(db.prisma, "", 50)).filter((h) => h.kind === "session");
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) {
      const row = rows.find((r) => r.id === hit.id)!;
      if (row.startedAt) expect(hit.detail).toContain(`started ${row.startedAt.toISOString().slice(0, 10)}`);
    }
    // No two hits read the same (label and detail together).
    expect(new Set(hits.map((h) => `${h.label} ${h.detail}`)).size).toBe(hits.length);
  });

  it("finds a policy by name, and a session by the start of its id", async () => {
    const policies = await searchByName(db.prisma, "refund rca");
    expect(policies.map((h) => [h.kind, h.label])).toEqual([["policy", "Refund RCA: recorded tools"]]);
    const anySession = (await searchByName(db.prisma, "", 1)).find((h) => h.kind === "session")!;
    // Sixteen characters: ids made in one import share their first nine (the time) and count up in the next four.
    const byId = await searchByName(db.prisma, anySession.id.slice(0, 16));
    expect(byId.filter((h) => h.kind === "session").map((h) => h.id)).toEqual([anySession.id]);
  });

  it("returns nothing for a name nobody has, and at most `limit` of each kind for an empty query", async () => {
    expect(await searchByName(db.prisma, "no such thing anywhere")).toEqual([]);
    const recent = await searchByName(db.prisma, "", 3);
    expect(recent.filter((h) => h.kind === "session")).toHaveLength(3);
    expect(recent.filter((h) => h.kind === "policy")).toHaveLength(1);
  });

  it("treats LIKE wildcards in the query as plain characters", async () => {
    expect(await searchByName(db.prisma, "%")).toEqual([]);
    expect(await searchByName(db.prisma, "_")).toEqual([]);
  });
});
