import { describe, expect, it } from "vitest";
import { clientAddress, normalizeAddress, parseTrustedProxies } from "./client-address.mjs";

describe("the client address", () => {
  const none = parseTrustedProxies("");
  const proxies = parseTrustedProxies("10.0.0.0/8, 192.0.2.1, fd00::/8");

  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", none)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:203.0.113.9", undefined, none)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.1", "1.2.3.4", none)).toBe("10.0.0.1");
  });

  it("is the peer when the peer is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "10.0.0.5", proxies)).toBe("203.0.113.9");
  });

  it("behind trusted proxies, is the right-most hop none of them added", () => {
    expect(clientAddress("10.0.0.2", "6.6.6.6, 198.51.100.7, 10.0.0.3", proxies)).toBe("198.51.100.7");
    expect(clientAddress("192.0.2.1", "198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(clientAddress("fd00::1", "2001:db8::1", proxies)).toBe("2001:db8::1");
    expect(clientAddress("10.0.0.2", ["6.6.6.6", "198.51.100.8"], proxies)).toBe("198.51.100.8");
  });

  it("stops at the last address a trusted proxy vouched for when a hop is not an address", () => {
    expect(clientAddress("10.0.0.2", "198.51.100.7, not-an-ip", proxies)).toBe("10.0.0.2");
    expect(clientAddress("10.0.0.2", "not-an-ip, 10.0.0.3", proxies)).toBe("10.0.0.3");
    // Only proxies: the left-most one they name.
    expect(clientAddress("10.0.0.2", "10.0.0.4", proxies)).toBe("10.0.0.4");
    expect(clientAddress("10.0.0.2", undefined, proxies)).toBe("10.0.0.2");
  });

  it("normalizes addresses and refuses entries that are not addresses or ranges, naming them", () => {
    expect(normalizeAddress("[::1]")).toBe("::1");
    expect(normalizeAddress("bogus")).toBeNull();
    for (const bad of ["10.0.0.0/33", "example.com", "10.0.0.0/8/1", "fd00::/129", "10.0.0.0/x"]) {
      expect(() => parseTrustedProxies(bad)).toThrow(
        `BRANCHPOINT_TRUSTED_PROXIES: "${bad}" is not an IP address or CIDR range`,
      );
    }
  });
});
