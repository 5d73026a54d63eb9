import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createAuth, SIGN_IN_LIMIT } from "@/lib/auth/auth";
import { passwords } from "@/lib/auth/password";
import { SIGN_IN_FAILURES_FREE } from "@/lib/db/sign-in-failures";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import {
  CLIENT_ADDRESS_HEADER,
  SERVER_MARK,
  parseTrustedProxies,
  setClientAddress,
} from "@/scripts/client-address.mjs";
import { completeSetup, prepareFirstRun } from "@/lib/server/team/team";

const SECRET = "test-secret-0123456789-0123456789-abcdef";
type Auth = ReturnType<typeof createAuth>;

/**
 * A real HTTP server in front of Better Auth that handles each request as
 * scripts/server.mjs does: the client address from the socket, or from the
 * trusted proxies' X-Forwarded-For, replacing whatever the client sent.
 */
async function serve(trustedProxies: string, makeAuth: (base: string) => Auth) {
  const trusted = parseTrustedProxies(trustedProxies);
  const server = http.createServer((req, res) => {
    setClientAddress(req, trusted);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const request = new Request(`${base}${req.url}`, {
        method: req.method,
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      void auth.handler(request).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = makeAuth(base);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  return { base, post, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe.each(TEST_ENGINES)("account security on %s", (engine) => {
  let db: TestDatabase;
  const make = (baseURL: string) => createAuth(db.prisma, { secret: SECRET, baseURL });

  beforeAll(async () => {
    // As under scripts/server.mjs: the app reads the client address header the server sets.
    vi.stubEnv(SERVER_MARK, "1");
    db = await createTestDatabase(engine);
    const { setupToken } = await prepareFirstRun(db.prisma);
    await completeSetup(db.prisma, { token: setupToken, name: "Ada", email: "ada@x.test", password: "password-1" });
  }, 300_000);
  afterEach(async () => {
    vi.restoreAllMocks();
    // Each test starts with no counts: per address or per email.
    await db.prisma.rateLimit.deleteMany();
    await db.prisma.signInFailure.deleteMany();
  });
  /** Unknown emails skip scrypt in the limit tests (the limits, not the hashing, are under test; the machine is slow). */
  const cheapUnknownEmails = () => vi.spyOn(passwords, "hash").mockResolvedValue("00:00");
  afterAll(async () => {
    vi.unstubAllEnvs();
    await db?.drop();
  });

  it("a new forged X-Forwarded-For on every attempt gets 429 at the same count as one address; a forged client-address header is replaced", async () => {
    cheapUnknownEmails();
    const server = await serve("", make);
    try {
      // A different (unknown) email each time, so only the per-address limit is in play.
      const spread: number[] = [];
      for (let i = 0; i <= SIGN_IN_LIMIT.max; i++) {
        const forged = { "x-forwarded-for": `203.0.113.${i + 1}`, [CLIENT_ADDRESS_HEADER]: `198.51.100.${i + 1}` };
        spread.push(
          (await server.post("/api/auth/sign-in/email", { email: `spread${i}@x.test`, password: "wrong-pass" }, forged))
            .status,
        );
      }
      expect(spread).toEqual([...Array<number>(SIGN_IN_LIMIT.max).fill(401), 429]);
      // All of them were counted against the socket's address, and no forged one.
      const keys = (await db.prisma.rateLimit.findMany({ select: { key: true, count: true } })).map((r) => r.key);
      expect(keys).toEqual(["127.0.0.1|/sign-in/email"]);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("behind a trusted proxy, the right-most address it did not add is the client's", async () => {
    cheapUnknownEmails();
    const server = await serve("127.0.0.1/32, 10.0.0.0/8", make);
    try {
      // The client wrote 6.6.6.6 itself; the proxy at 10.0.0.9 appended the address it saw, 192.0.2.7.
      const via = { "x-forwarded-for": "6.6.6.6, 192.0.2.7, 10.0.0.9" };
      const statuses: number[] = [];
      for (let i = 0; i <= SIGN_IN_LIMIT.max; i++) {
        statuses.push(
          (await server.post("/api/auth/sign-in/email", { email: `proxied${i}@x.test`, password: "wrong-pass" }, via))
            .status,
        );
      }
      expect(statuses).toEqual([...Array<number>(SIGN_IN_LIMIT.max).fill(401), 429]);
      // Another client behind the same proxy has its own count.
      const other = await server.post(
        "/api/auth/sign-in/email",
        { email: "ada@x.test", password: "password-1" },
        { "x-forwarded-for": "192.0.2.8" },
      );
      expect(other.status).toBe(200);
      const rows = await db.prisma.rateLimit.findMany({ select: { key: true, count: true }, orderBy: { key: "asc" } });
      expect(rows).toEqual([
        { key: "192.0.2.7|/sign-in/email", count: SIGN_IN_LIMIT.max },
        { key: "192.0.2.8|/sign-in/email", count: 1 },
      ]);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("the per-email limit holds across addresses, locks unknown emails alike, and is audited", async () => {
    cheapUnknownEmails();
    const auth = make("http://127.0.0.1:3999");
    const attempt = (email: string, password: string, address: string) =>
      auth.handler(
        new Request("http://127.0.0.1:3999/api/auth/sign-in/email", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "http://127.0.0.1:3999",
            [CLIENT_ADDRESS_HEADER]: address,
          },
          body: JSON.stringify({ email, password }),
        }),
      );
    const run = async (email: string, right: string) => {
      const answers: { status: number; body: unknown }[] = [];
      // Each failure from a new address: the per-address limit never sees more than one.
      for (let i = 0; i < SIGN_IN_FAILURES_FREE; i++) {
        const res = await attempt(email, "wrong-pass", `198.51.100.${i + 1}`);
        answers.push({ status: res.status, body: await res.json() });
      }
      const locked = await attempt(email, right, "198.51.100.99");
      answers.push({ status: locked.status, body: await locked.json() });
      return { answers, retryAfter: locked.headers.get("retry-after") };
    };
    const known = await run("Ada@X.test", "password-1");
    const unknown = await run("nobody@x.test", "whatever-1");
    expect(known.answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429]);
    const lockedBody = known.answers[5]!.body as { code: string; message: string };
    expect(lockedBody.code).toBe("SIGN_IN_LOCKED");
    // 30 seconds, or a second less when the machine is slow between the lock and the next attempt.
    expect(lockedBody.message).toMatch(/^Too many failed sign-ins for this email; try again in (29|30) seconds\.$/);
    expect(["29", "30"]).toContain(known.retryAfter);
    // An email with no account answers exactly alike: the lock tells nothing about which emails exist.
    const shape = (r: typeof known) =>
      r.answers.map((a) => [a.status, JSON.stringify(a.body).replace(/\d+ seconds/, "N seconds")]);
    expect(shape(unknown)).toEqual(shape(known));
    const rows = await db.prisma.signInFailure.findMany({
      select: { email: true, failures: true },
      orderBy: { email: "asc" },
    });
    expect(rows).toEqual([
      { email: "ada@x.test", failures: SIGN_IN_FAILURES_FREE },
      { email: "nobody@x.test", failures: SIGN_IN_FAILURES_FREE },
    ]);
    const audit = await db.prisma.auditEvent.findMany({
      where: { action: "auth.sign_in_locked" },
      orderBy: { target: "asc" },
    });
    expect(
      audit.map((e) => [e.actorId, e.actorName, e.target, (e.detail as { clientAddress: string }).clientAddress]),
    ).toEqual([
      [null, "sign-in limit", "ada@x.test", "198.51.100.5"],
      [null, "sign-in limit", "nobody@x.test", "198.51.100.5"],
    ]);
    // Once the lock has run out, the right password works and clears the count.
    await db.prisma.signInFailure.updateMany({ data: { lockedUntil: new Date(Date.now() - 1000) } });
    expect((await attempt("ada@x.test", "password-1", "198.51.100.100")).status).toBe(200);
    expect(await db.prisma.signInFailure.findMany({ select: { email: true } })).toEqual([{ email: "nobody@x.test" }]);
  }, 180_000);

  it("trusts exactly the served origin: another local port cannot change the user or sign them out", async () => {
    // No public URL: the served port's own origins, and nothing else on this machine.
    vi.stubEnv("PORT", "3999");
    const auth = createAuth(db.prisma, { secret: SECRET });
    const call = (path: string, origin: string, body: unknown, cookie = "") =>
      auth.handler(
        new Request(`http://127.0.0.1:3999/api/auth${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin, cookie, [CLIENT_ADDRESS_HEADER]: "192.0.2.50" },
          body: JSON.stringify(body),
        }),
      );
    const signedIn = await call("/sign-in/email", "http://127.0.0.1:3999", {
      email: "ada@x.test",
      password: "password-1",
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    for (const foreign of ["http://127.0.0.1:4000", "http://localhost:8080", "http://[::1]:3998"]) {
      const res = await call("/update-user", foreign, { name: "Mallory" }, cookie);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("INVALID_ORIGIN");
    }
    expect((await call("/sign-out", "http://127.0.0.1:4000", {}, cookie)).status).toBe(403);
    expect((await db.prisma.user.findUniqueOrThrow({ where: { email: "ada@x.test" } })).name).toBe("Ada");
    const ok = await call("/update-user", "http://localhost:3999", { name: "Ada L." }, cookie);
    expect(ok.status).toBe(200);
    expect((await db.prisma.user.findUniqueOrThrow({ where: { email: "ada@x.test" } })).name).toBe("Ada L.");
  }, 180_000);

  it("session cookies are Secure when the public URL is https, and not over plain http", async () => {
    const cookieOf = async (base: string) => {
      const res = await make(base).handler(
        new Request(`${base}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: base, [CLIENT_ADDRESS_HEADER]: "192.0.2.60" },
          body: JSON.stringify({ email: "ada@x.test", password: "password-1" }),
        }),
      );
      expect(res.status).toBe(200);
      return res.headers.getSetCookie().find((c) => c.includes("session_token="))!;
    };
    const secure = await cookieOf("https://rca.example.com");
    expect(secure).toMatch(/^__Secure-better-auth\.session_token=/);
    expect(secure.split(/;\s*/).map((a) => a.toLowerCase())).toContain("secure");
    const plain = await cookieOf("http://127.0.0.1:3999");
    expect(plain).toMatch(/^better-auth\.session_token=/);
    expect(plain.split(/;\s*/).map((a) => a.toLowerCase())).not.toContain("secure");
  }, 180_000);

  it("a wrong password and an unknown email each cost one scrypt of the typed password", async () => {
    const hash = vi.spyOn(passwords, "hash");
    const verify = vi.spyOn(passwords, "verify");
    const auth = make("http://127.0.0.1:3999");
    const attempt = (email: string) =>
      auth.handler(
        new Request("http://127.0.0.1:3999/api/auth/sign-in/email", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "http://127.0.0.1:3999",
            [CLIENT_ADDRESS_HEADER]: "192.0.2.70",
          },
          body: JSON.stringify({ email, password: "typed-wrong" }),
        }),
      );
    expect((await attempt("nobody@x.test")).status).toBe(401);
    expect(hash.mock.calls).toEqual([["typed-wrong"]]);
    expect(verify).not.toHaveBeenCalled();
    hash.mockClear();
    expect((await attempt("ada@x.test")).status).toBe(401);
    expect(hash).not.toHaveBeenCalled();
    expect(verify.mock.calls.map(([d]) => d.password)).toEqual(["typed-wrong"]);
  }, 180_000);
});
