import http from "node:http";
import type { AddressInfo } from "node:net";
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
});
