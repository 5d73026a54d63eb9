import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDestination, isPublicAddress, OutboundRefused, safeRequest, type Resolver } from "./outbound";

/** A real tool endpoint on 127.0.0.1: `/ok` answers JSON, `/hop` redirects to `to`. */
function server(handler: http.RequestListener) {
  const s = http.createServer(handler);
  return {
    start: () =>
      new Promise<number>((resolve) => s.listen(0, "127.0.0.1", () => resolve((s.address() as AddressInfo).port))),
    stop: () => new Promise<void>((resolve) => s.close(() => resolve())),
  };
}

const signal = () => AbortSignal.timeout(5000);
const post = { method: "POST" as const, headers: { "content-type": "application/json" }, body: "{}" };

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRefused);
  return (error as OutboundRefused).message;
}

describe("outbound allow-list", () => {
  let hits = 0;
  let target = 0;
  let redirector = 0;
  let redirectTo = "";
  const tool = server((req, res) => {
    hits++;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ output: "ok", method: req.method }));
  });
  const hop = server((_req, res) => {
    res.statusCode = 307;
    res.setHeader("location", redirectTo);
    res.end();
  });
  beforeAll(async () => {
    target = await tool.start();
    redirector = await hop.start();
  });
  afterAll(async () => {
    await tool.stop();
    await hop.stop();
  });

  it("classifies addresses", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:10.0.0.1",
      "0.0.0.0",
    ])
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700::1111"]) expect([a, isPublicAddress(a)]).toEqual([a, true]);
  });

  it("judges an IPv6 address that carries an IPv4 one by that IPv4 address, in every embedding and spelling", () => {
    for (const a of [
      "::127.0.0.1",
      "::7f00:1",
      "::ffff:7f00:1",
      "0:0:0:0:0:FFFF:7F00:0001",
      "::ffff:0:7f00:1",
      "::ffff:0:10.0.0.1",
      "2002:7f00:1::",
      "2002:a9fe:a9fe::1",
      "64:ff9b::127.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::8.8.8.8",
      "2001:0:7f00:1::f7f7:f7f7",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
    ])
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    // The same forms around a public IPv4 address are public: nothing is refused for its spelling alone.
    for (const a of ["::ffff:8.8.8.8", "2002:808:808::1", "64:ff9b::8.8.8.8", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"])
      expect([a, isPublicAddress(a)]).toEqual([a, true]);
  });

  it("refuses every non-public IPv4 address in every IPv6 embedding (property)", () => {
    const ranges: [number, number][] = [
      [0x00000000, 8],
      [0x0a000000, 8],
      [0x64400000, 10],
      [0x7f000000, 8],
      [0xa9fe0000, 16],
      [0xac100000, 12],
      [0xc0a80000, 16],
      [0xc6120000, 15],
      [0xe0000000, 4],
    ];
    const privateV4 = fc
      .tuple(fc.constantFrom(...ranges), fc.nat())
      .map(([[base, prefix], n]) => (base + (n % 2 ** (32 - prefix))) >>> 0);
    const hex = (n: number) => n.toString(16);
    const forms = (v4: number) => {
      const hi = v4 >>> 16;
      const lo = v4 & 0xffff;
      const dotted = `${v4 >>> 24}.${(v4 >>> 16) & 0xff}.${(v4 >>> 8) & 0xff}.${v4 & 0xff}`;
      return [
        `::ffff:${dotted}`,
        `::ffff:${hex(hi)}:${hex(lo)}`,
        `0:0:0:0:0:ffff:${hex(hi)}:${hex(lo)}`.toUpperCase(),
        `::${dotted}`,
        `0:0:0:0:0:0:${hex(hi)}:${hex(lo)}`,
        `::ffff:0:${dotted}`,
        `::ffff:0:${hex(hi)}:${hex(lo)}`,
        `2002:${hex(hi)}:${hex(lo)}::`,
        `2002:${hex(hi)}:${hex(lo)}:1::1`,
        `64:ff9b::${dotted}`,
        `64:ff9b::${hex(hi)}:${hex(lo)}`,
        `64:ff9b:1::${dotted}`,
        `64:ff9b:1:${hex(hi)}:${hex(lo)}::`,
        // Teredo: a private server, then a private client (its bits inverted) behind a public server.
        `2001:0:${hex(hi)}:${hex(lo)}::f7f7:f7f7`,
        `2001:0:4136:e378:8000:63bf:${hex(hi ^ 0xffff)}:${hex(lo ^ 0xffff)}`,
      ];
    };
    fc.assert(
      fc.property(privateV4, (v4) => {
        for (const a of forms(v4)) expect([a, isPublicAddress(a)]).toEqual([a, false]);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses an allow-listed name whose DNS answer embeds a loopback address, and connects to the checked IPv6 address itself", async () => {
    const allowed = new Set(["tools.example.com"]);
    for (const [address, carried] of [
      ["::7f00:1", "127.0.0.1"],
      ["::ffff:0:7f00:1", "127.0.0.1"],
      ["2002:7f00:1::", "127.0.0.1"],
    ] as const) {
      const resolver: Resolver = async () => [{ address, family: 6 }];
      expect(await refusal(checkDestination(new URL("http://tools.example.com/x"), allowed, resolver))).toBe(
        `Host "tools.example.com" resolves to ${address} (which carries ${carried}), a private, loopback or link-local address; allow-list that address itself to call it.`,
      );
    }
    // A 6to4 address of a public host passes, and the call goes to that IPv6 address, not to the IPv4 one inside it.
    const resolver: Resolver = async () => [{ address: "2002:808:808::1", family: 6 }];
    expect(await checkDestination(new URL("http://tools.example.com/x"), allowed, resolver)).toEqual({
      address: "2002:808:808::1",
      family: 6,
    });
  });

  it("refuses a live endpoint on 127.0.0.1 that is not allow-listed, before any request is made", async () => {
    const message = await refusal(
      safeRequest(new URL(`http://127.0.0.1:${target}/ok`), { ...post, signal: signal() }, new Set()),
    );
    expect(message).toBe(`Host "127.0.0.1:${target}" is not on the executor allow-list (Settings → Executors).`);
    expect(hits).toBe(0);
  });

  it("calls an explicitly allow-listed loopback endpoint", async () => {
    const answer = await safeRequest(
      new URL(`http://127.0.0.1:${target}/ok`),
      { ...post, signal: signal() },
      new Set([`127.0.0.1:${target}`]),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ output: "ok", method: "POST" });
    expect(hits).toBe(1);
  });

  it("refuses a redirect to a private address that is not allow-listed, without calling it", async () => {
    redirectTo = `http://10.255.255.1:${target}/ok`;
    const message = await refusal(
      safeRequest(
        new URL(`http://127.0.0.1:${redirector}/hop`),
        { ...post, signal: signal() },
        new Set([`127.0.0.1:${redirector}`]),
      ),
    );
    expect(message).toBe(`Host "10.255.255.1:${target}" is not on the executor allow-list (Settings → Executors).`);
  });

  it("refuses an allow-listed name whose DNS answer is private (rebinding), and a redirect to such a name", async () => {
    const resolver: Resolver = async (name) =>
      name === "tools.example.com" ? [{ address: "169.254.169.254", family: 4 }] : [];
    const allowed = new Set(["tools.example.com", `127.0.0.1:${redirector}`]);
    const message = await refusal(checkDestination(new URL("http://tools.example.com/x"), allowed, resolver));
    expect(message).toBe(
      'Host "tools.example.com" resolves to 169.254.169.254, a private, loopback or link-local address; allow-list that address itself to call it.',
    );
    redirectTo = "http://tools.example.com/x";
    const before = hits;
    const viaRedirect = await refusal(
      safeRequest(new URL(`http://127.0.0.1:${redirector}/hop`), { ...post, signal: signal() }, allowed, resolver),
    );
    expect(viaRedirect).toBe(message);
    expect(hits).toBe(before);
  });

  it("follows a redirect to another allow-listed endpoint and keeps POST on 307", async () => {
    redirectTo = `http://127.0.0.1:${target}/ok`;
    const answer = await safeRequest(
      new URL(`http://127.0.0.1:${redirector}/hop`),
      { ...post, signal: signal() },
      new Set([`127.0.0.1:${redirector}`, `127.0.0.1:${target}`]),
    );
    expect(JSON.parse(answer.text)).toEqual({ output: "ok", method: "POST" });
  });

  it("calls an allow-listed IPv4-mapped loopback literal at the address it names", async () => {
    const before = hits;
    const answer = await safeRequest(
      new URL(`http://[::ffff:127.0.0.1]:${target}/ok`),
      { ...post, signal: signal() },
      new Set([`[::ffff:7f00:1]:${target}`]),
    );
    expect(JSON.parse(answer.text)).toEqual({ output: "ok", method: "POST" });
    expect(hits).toBe(before + 1);
  });
});
