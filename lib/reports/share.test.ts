import { describe, expect, it } from "vitest";
import { expiryDate, hashShareToken, isShareTokenShape, newShareToken, shareState, shareUrl } from "./share";

describe("share tokens", () => {
  it("are 128 random bits in base64url, and distinct", () => {
    const tokens = new Set(Array.from({ length: 200 }, newShareToken));
    expect(tokens.size).toBe(200);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(t, "base64url")).toHaveLength(16);
      expect(isShareTokenShape(t)).toBe(true);
    }
  });
  it("are stored as their SHA-256", () => {
    expect(hashShareToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
  it("of another shape are never looked up", () => {
    for (const bad of [undefined, null, "", "short", "a".repeat(23), "a".repeat(21) + "=", "a".repeat(21) + "/", 42])
      expect(isShareTokenShape(bad)).toBe(false);
  });
});

describe("expiry and state", () => {
  const now = new Date("2026-02-01T00:00:00Z");
  it("maps the choices to dates", () => {
    expect(expiryDate("1d", now)?.toISOString()).toBe("2026-02-02T00:00:00.000Z");
    expect(expiryDate("7d", now)?.toISOString()).toBe("2026-02-08T00:00:00.000Z");
    expect(expiryDate("30d", now)?.toISOString()).toBe("2026-03-03T00:00:00.000Z");
    expect(expiryDate("never", now)).toBeNull();
  });
  it("is active, expired (at the instant of expiry) or revoked (which wins)", () => {
    expect(shareState({ revokedAt: null, expiresAt: null }, now)).toBe("active");
    expect(shareState({ revokedAt: null, expiresAt: new Date(now.getTime() + 1) }, now)).toBe("active");
    expect(shareState({ revokedAt: null, expiresAt: now }, now)).toBe("expired");
    expect(shareState({ revokedAt: now, expiresAt: new Date(now.getTime() + 1000) }, now)).toBe("revoked");
  });
  it("builds the URL on the base", () => {
    expect(shareUrl("https://bp.example/", "tok")).toBe("https://bp.example/share/tok");
  });
});
