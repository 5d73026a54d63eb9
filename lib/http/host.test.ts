import { describe, expect, it } from "vitest";
import { checkHost, parseHost, type HostSettings } from "./host";

const settings = (over: Partial<HostSettings> = {}): HostSettings => ({
  publicUrl: "https://rca.example.com",
  allowedHosts: ["branchpoint.internal", "ops.example:8443"],
  trustProxy: false,
  ...over,
});
const headers = (h: Record<string, string>) => new Headers(h);

describe("the Host check (DNS rebinding)", () => {
  it.each([
    ["127.0.0.1:3000"],
    ["localhost:3000"],
    ["[::1]:3000"],
    ["10.0.0.7"],
    ["rca.example.com"],
    ["RCA.example.com"],
    ["branchpoint.internal:3000"],
    ["ops.example:8443"],
    ["app.localhost:3000"],
  ])("answers %s", (host) => {
    expect(checkHost(headers({ host }), settings())).toEqual({ ok: true });
  });

  it.each([
    ["rebind.example:3000"],
    ["127.0.0.1.nip.io"],
    ["ops.example:9000"],
    ["rca.example.com.evil.example"],
    ["localhost.evil.example"],
    ["bad host"],
  ])("refuses %s", (host) => {
    const verdict = checkHost(headers({ host }), settings());
    expect(verdict.ok).toBe(false);
  });

  it("refuses a request without Host", () => {
    expect(checkHost(headers({}), settings()).ok).toBe(false);
  });

  it("ignores X-Forwarded-Host unless trusted, and checks it when trusted", () => {
    const h = headers({ host: "rebind.example", "x-forwarded-host": "127.0.0.1" });
    expect(checkHost(h, settings()).ok).toBe(false);
    expect(checkHost(h, settings({ trustProxy: true })).ok).toBe(true);
    const behind = headers({ host: "127.0.0.1:3000", "x-forwarded-host": "rebind.example" });
    expect(checkHost(behind, settings({ trustProxy: true })).ok).toBe(false);
  });

  it("says what to configure", () => {
    const verdict = checkHost(headers({ host: "new.example" }), settings());
    expect(verdict).toMatchObject({ ok: false, host: "new.example" });
    if (!verdict.ok) expect(verdict.reason).toContain("BRANCHPOINT_ALLOWED_HOSTS");
  });

  it("parses hosts", () => {
    expect(parseHost("[::1]:80")).toEqual({ name: "::1", port: "80" });
    expect(parseHost("Example.COM")).toEqual({ name: "example.com", port: null });
    expect(parseHost("a b")).toBeNull();
  });
});
