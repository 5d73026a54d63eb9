import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { completeSetup, prepareFirstRun } from "./team";

// The one-time setup link, used eight times at once before any account exists:
// PostgreSQL ran the attempts side by side and each saw no user yet, making
// three admins. Exactly one may win; the others are told the link was used.
describe.each(TEST_ENGINES)("setup link raced on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("eight concurrent uses of the setup token make exactly one admin and seven refusals", async () => {
    const { setupToken } = await prepareFirstRun(db.prisma);
    expect(setupToken).toBeTruthy();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        completeSetup(db.prisma, {
          token: setupToken,
          name: `Admin ${i}`,
          email: `admin${i}@x.test`,
          password: "password-1",
        }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(7);
    for (const error of refused) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("wrong_state");
      expect((error as AppError).message).toBe(
        "This setup link was already used: Branchpoint has its admin; sign in instead.",
      );
    }
    const users = await db.prisma.user.findMany({ select: { email: true, role: true } });
    expect(users).toEqual([
      { email: (won[0] as PromiseFulfilledResult<{ email: string }>).value.email, role: "admin" },
    ]);
    expect(await db.prisma.appSetting.count({ where: { key: "setup_token_hash" } })).toBe(0);
    expect(await db.prisma.auditEvent.count({ where: { action: "auth.setup" } })).toBe(1);
  });
});
