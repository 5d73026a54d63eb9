import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicy } from "./policies";
import { recordExists } from "./records";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { createTestDatabase, type TestDatabase } from "./testing";

describe("whether a detail page's record exists, on the embedded database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    await loadDemoData(db.prisma);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("finds a session and a policy by id, and nothing for an id no record has", async () => {
    const session = await db.prisma.session.findFirstOrThrow({ select: { id: true } });
    const policy = await createPolicy(db.prisma, { name: "Exists check" });
    expect(await recordExists(db.prisma, "session", session.id)).toBe(true);
    expect(await recordExists(db.prisma, "policy", policy.id)).toBe(true);
    // An id of another kind is not this kind's record.
    expect(await recordExists(db.prisma, "replay", session.id)).toBe(false);
    for (const kind of ["session", "replay", "policy", "report", "experiment", "trials"] as const) {
      expect(await recordExists(db.prisma, kind, "does-not-exist"), kind).toBe(false);
    }
  });
});
