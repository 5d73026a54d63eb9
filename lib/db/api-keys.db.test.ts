import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, registerEnvApiKey, revokeApiKey, verifyApiKey } from "./api-keys";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

describe.each(TEST_ENGINES)("API keys on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("stores only a hash, verifies the key, and refuses it once revoked", async () => {
    const { id, key } = await createApiKey(db.prisma, "ci");
    const row = await db.prisma.apiKey.findUnique({ where: { id }, select: { keyHash: true, prefix: true } });
    expect(row?.keyHash).not.toContain(key);
    expect(await verifyApiKey(db.prisma, key)).toBe(id);
    expect(await verifyApiKey(db.prisma, `${key}x`)).toBeNull();
    expect(await verifyApiKey(db.prisma, undefined)).toBeNull();
    expect(await revokeApiKey(db.prisma, id)).toEqual({ id, name: "ci" });
    expect(await verifyApiKey(db.prisma, key)).toBeNull();
  });

  it("a key from the environment that was revoked in Settings stays revoked after a restart", async () => {
    const envKey = "env-key-0123456789abcdef";
    expect(await registerEnvApiKey(db.prisma, envKey)).toBe("registered");
    const keyId = await verifyApiKey(db.prisma, envKey);
    expect(keyId).not.toBeNull();
    await revokeApiKey(db.prisma, keyId!);
    expect(await registerEnvApiKey(db.prisma, envKey)).toBe("revoked");
    expect(await verifyApiKey(db.prisma, envKey)).toBeNull();
  });
});
