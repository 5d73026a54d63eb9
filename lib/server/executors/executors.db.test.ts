/**
 * The host allow-list refuses entries that could never match a call, with a
 * 400 naming what is wrong, and writes nothing (no row, no audit entry): the
 * API route (`putHost`) and the settings page's form (`addAllowedHost`) share one check.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { STATUS } from "@/lib/errors";
import { hostAllowed } from "@/lib/executors/live";
import { putHost } from "./executors-admin";
import { executorSettings, saveModelEndpoint } from "./executors";
import { localAdmin } from "../principal";
import { refusal } from "../testing";

const EXAMPLE = "Write a host name or host:port, such as api.example.com or 127.0.0.1:8080.";

describe.each(TEST_ENGINES)("the executor allow-list on %s", (engine) => {
  let db: TestDatabase;
  const admin = localAdmin("admin");
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const written = async () => ({
    hosts: await db.prisma.allowedHost.count(),
    audit: await db.prisma.auditEvent.count(),
  });

  it("refuses an entry that can never match with a 400 naming what is wrong, writing nothing", async () => {
    const before = await written();
    for (const [host, reason] of [
      [
        "*",
        '"*" cannot be part of a host name, which has only letters a–z, digits and hyphens (not first or last in a part)',
      ],
      [
        "__proto__",
        '"__proto__" cannot be part of a host name, which has only letters a–z, digits and hyphens (not first or last in a part)',
      ],
      [`${"a".repeat(63)}.`.repeat(79) + "com", "it is 5059 characters long, and a host name has at most 253"],
      [
        `${"b".repeat(64)}.example.com`,
        `the part "${"b".repeat(60)}…" is 64 characters long, and a part between dots has at most 63`,
      ],
      ["api.example.com:0", 'the port "0" is not a number from 1 to 65535'],
      ["api.example.com:65536", 'the port "65536" is not a number from 1 to 65535'],
      ["300.1.1.1", '"300.1.1.1" is not an IPv4 address (four numbers from 0 to 255)'],
      ["[::1::2]:80", '"::1::2" is not an IPv6 address (write one with a port in brackets: [::1]:8080)'],
      ["http://x/y", "an entry is a host and an optional port, with no path, query, user name or spaces"],
      ["ftp://files.example.com", "only http:// and https:// hosts are called"],
    ] as const) {
      const error = await refusal(putHost(admin, { host }, db.prisma));
      const shown = host.length > 60 ? `${host.slice(0, 60)}…` : host;
      expect([host.slice(0, 20), STATUS[error.code], error.message]).toEqual([
        host.slice(0, 20),
        400,
        `"${shown}" is not a host: ${reason}. ${EXAMPLE}`,
      ]);
    }
    expect(await written()).toEqual(before);
  });

  it("stores host names, IPv4 and IPv6 addresses with an optional port, case-folded, in the form calls are compared in", async () => {
    const stored: string[] = [];
    for (const host of [
      "API.Example.com",
      "https://tools.example.com:8443/",
      "127.0.0.1:9",
      "0:0:0:0:0:0:0:1",
      "[FD00::1]:8080",
    ])
      stored.push((await putHost(admin, { host }, db.prisma)).host);
    expect(stored).toEqual(["api.example.com", "tools.example.com:8443", "127.0.0.1:9", "::1", "[fd00::1]:8080"]);
    expect((await db.prisma.allowedHost.findMany()).map((h) => h.host).sort()).toEqual([...stored].sort());
  });

  it("shows an endpoint's host as allowed exactly when a live call would be let through", async () => {
    // The allow-list above holds "::1" (no brackets, no port), "127.0.0.1:9" and "[fd00::1]:8080".
    const endpoints = [
      ["ipv6-any-port", "http://[::1]:9000/v1", true],
      ["ipv6-listed-port", "http://[fd00::1]:8080/v1", true],
      ["ipv6-other-port", "http://[fd00::1]:9090/v1", false],
      ["ipv4-listed-port", "http://127.0.0.1:9/v1", true],
      ["ipv4-other-port", "http://127.0.0.1:10/v1", false],
      ["name", "https://API.example.com/v1", true],
    ] as const;
    for (const [name, baseUrl] of endpoints) await saveModelEndpoint(admin, { name, baseUrl, model: "m" }, db.prisma);
    const settings = await executorSettings(admin, {}, db.prisma);
    const allowed = Object.fromEntries(settings.models.map((m) => [m.name, m.hostAllowed]));
    const live = new Set((await db.prisma.allowedHost.findMany()).map((h) => h.host));
    for (const [name, baseUrl, expected] of endpoints) {
      expect([name, allowed[name]]).toEqual([name, expected]);
      expect([name, hostAllowed(new URL(baseUrl), live)]).toEqual([name, expected]);
    }
  });
});
