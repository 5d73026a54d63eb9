import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllowListEntry } from "./allow-list";
import { hostAllowed } from "./live";

/** A URL that reaches what an entry names: its host (an IPv6 address in brackets) and port. */
function urlFor(entry: string): URL {
  return new URL(
    `http://${entry.includes(":") && !entry.startsWith("[") && entry.split(":").length > 2 ? `[${entry}]` : entry}/`,
  );
}

describe("allow-list entries", () => {
  it("refuses what can never match a call, saying what is wrong", () => {
    expect(parseAllowListEntry("*")).toEqual({
      ok: false,
      message:
        '"*" is not a host: "*" cannot be part of a host name, which has only letters a–z, digits and hyphens (not first or last in a part). Write a host name or host:port, such as api.example.com or 127.0.0.1:8080.',
    });
    for (const bad of [
      "__proto__",
      "a".repeat(5000),
      "a..b",
      "foo.123",
      "127.1",
      "x:0",
      "x:65536",
      "[fe80::1%eth0]",
      "bücher.de",
      "ftp://x",
      "http://x/y",
      "",
    ])
      expect([bad.slice(0, 20), parseAllowListEntry(bad).ok]).toEqual([bad.slice(0, 20), false]);
  });

  it("every entry it accepts matches a call to that host (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.domain(), fc.ipV4(), fc.ipV6(), fc.webUrl()),
        fc.option(fc.integer({ min: 0, max: 70_000 })),
        (host, port) => {
          const entry = parseAllowListEntry(
            port === null ? host : `${host.includes(":") ? `[${host}]` : host}:${port}`,
          );
          if (!entry.ok) return;
          expect(entry.host).toBe(entry.host.toLowerCase());
          expect([entry.host, hostAllowed(urlFor(entry.host), new Set([entry.host]))]).toEqual([entry.host, true]);
        },
      ),
      { numRuns: 500 },
    );
  }, 30_000);

  it("accepts every domain name, IPv4 and IPv6 address (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6()), (host) => {
        expect([host, parseAllowListEntry(host).ok]).toEqual([host, true]);
      }),
      { numRuns: 300 },
    );
  }, 30_000);
});
