import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditedChange } from "./audit";
import { upsertAllowedHost } from "./executors";
import { createTestDatabase, type TestDatabase } from "./testing";

describe("a change and its audit entry are one transaction", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await db.drop();
  });

  const entry = (target: string) => ({
    actorId: null,
    actorName: "olga",
    action: "allowed_host.changed" as const,
    target,
  });

  it("writes both, or neither when the entry cannot be written", async () => {
    await auditedChange(
      db.prisma,
      (tx) => upsertAllowedHost(tx, "ok.example"),
      () => entry("ok.example"),
    );
    const failed = await auditedChange(
      db.prisma,
      (tx) => upsertAllowedHost(tx, "half.example"),
      () => ({ ...entry("half.example"), detail: "\u0000" }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    expect((await db.prisma.allowedHost.findMany({ select: { host: true } })).map((h) => h.host)).toEqual([
      "ok.example",
    ]);
    expect((await db.prisma.auditEvent.findMany({ select: { target: true } })).map((a) => a.target)).toEqual([
      "ok.example",
    ]);
  });

  it("records nothing when the entry says so, and keeps the change", async () => {
    await auditedChange(
      db.prisma,
      (tx) => upsertAllowedHost(tx, "quiet.example"),
      () => null,
    );
    expect(await db.prisma.allowedHost.count({ where: { host: "quiet.example" } })).toBe(1);
    expect(await db.prisma.auditEvent.count({ where: { target: "quiet.example" } })).toBe(0);
  });
});
