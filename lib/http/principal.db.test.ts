import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAuth, type Auth } from "@/lib/auth/auth";
import { createApiKey, type Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { completeSetup, prepareFirstRun } from "@/lib/server/team/team";
import { resolvePrincipal } from "./principal";
import { publicRoute, route } from "./route";

// Every entry point finds who is acting through resolvePrincipal: these pin its answers (and the route
// wrapper's) to what apiRoute, the server actions and the dashboard routes answered before there was one.

const BASE = "http://127.0.0.1:3998";
const SESSION_HINT = "You are signed out; sign in again.";
const API_KEY_HINT = "A valid API key is required: send it as 'Authorization: Bearer <key>'.";
const TRACE_KEY_HINT =
  "A valid API key is required: send 'Authorization: Bearer <key>' or an 'x-api-key: <key>' header (OTEL_EXPORTER_OTLP_HEADERS=x-api-key=<key>).";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database>; __branchpointAuth?: Promise<Auth> };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const noParams = { params: Promise.resolve({}) };

describe.each(TEST_ENGINES)("resolvePrincipal and the route wrapper on %s", (engine) => {
  let db: TestDatabase;
  let cookie: string;
  let key: string;
  let readOnlyKey: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const auth = createAuth(db.prisma, { secret: "test-secret-0123456789-0123456789-abcdef", baseURL: BASE });
    global.__branchpointDb = Promise.resolve(db);
    global.__branchpointAuth = Promise.resolve(auth);
    const { setupToken } = await prepareFirstRun(db.prisma);
    const ada = await completeSetup(db.prisma, {
      token: setupToken,
      name: "Ada",
      email: "ada@x.test",
      password: "password-1",
    });
    const signedIn = await auth.handler(
      new Request(`${BASE}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE, "x-forwarded-for": "10.7.7.7" },
        body: JSON.stringify({ email: "ada@x.test", password: "password-1" }),
      }),
    );
    cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    key = (await createApiKey(db.prisma, "ada's script", { userId: ada.id })).key;
    readOnlyKey = (await createApiKey(db.prisma, "ada's reader", { userId: ada.id, readOnly: true })).key;
  });
  afterAll(async () => {
    global.__branchpointDb = undefined;
    global.__branchpointAuth = undefined;
    await db?.drop();
  });

  it("a session cookie names the signed-in user where a session is accepted, and only there", async () => {
    const headers = new Headers({ cookie });
    expect(await resolvePrincipal(headers, { accept: ["session"] })).toEqual({
      kind: "user",
      userId: expect.any(String) as string,
      name: "ada@x.test",
      role: "admin",
      readOnly: false,
    });
    expect((await refusal(resolvePrincipal(headers, { accept: ["api_key"] }))).message).toBe(API_KEY_HINT);
    const signedOut = await refusal(resolvePrincipal(new Headers(), { accept: ["session"] }));
    expect([signedOut.code, signedOut.message]).toEqual(["unauthorized", SESSION_HINT]);
    // A key does not stand in for a session (server actions, pages, the dashboard's downloads).
    const withKey = new Headers({ authorization: `Bearer ${key}` });
    expect((await refusal(resolvePrincipal(withKey, { accept: ["session"] }))).message).toBe(SESSION_HINT);
  });

  it("an API key is read as a Bearer key; a trace export's key also from the header forms exporters send", async () => {
    const bearer = new Request(`${BASE}/api/v1/x`, { headers: { authorization: `Bearer ${key}` } });
    expect(await resolvePrincipal(bearer, { accept: ["api_key"] })).toMatchObject({
      kind: "api_key",
      name: "ada@x.test",
      readOnly: false,
    });
    const reader = new Request(`${BASE}/api/v1/x`, { headers: { authorization: `Bearer ${readOnlyKey}` } });
    expect(await resolvePrincipal(reader, { accept: ["api_key"] })).toMatchObject({ readOnly: true });
    const xApiKey = new Request(`${BASE}/v1/traces`, { headers: { "x-api-key": key } });
    expect((await refusal(resolvePrincipal(xApiKey, { accept: ["api_key"] }))).message).toBe(API_KEY_HINT);
    expect(await resolvePrincipal(xApiKey, { accept: ["trace_key"] })).toMatchObject({ name: "ada@x.test" });
    const wrong = new Request(`${BASE}/v1/traces`, { headers: { "x-api-key": "bp_not-a-key-at-all" } });
    expect((await refusal(resolvePrincipal(wrong, { accept: ["trace_key"] }))).message).toBe(TRACE_KEY_HINT);
  });

  it("a share token gives the read-only share principal; no token, no principal", async () => {
    expect(await resolvePrincipal(new Headers(), { accept: ["share_token"], shareToken: "tok" })).toEqual({
      kind: "system",
      userId: null,
      name: "share link",
      role: "viewer",
      readOnly: true,
    });
    expect((await refusal(resolvePrincipal(new Headers(), { accept: ["share_token"] }))).code).toBe("unauthorized");
  });

  it("an API-key route answers a missing key as apiRoute always did", async () => {
    const GET = route({ accept: ["api_key"] }, async ({ principal }) => Response.json({ name: principal.name }));
    const refused = await GET(new Request(`${BASE}/api/v1/x`), noParams);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: { code: "unauthorized", message: API_KEY_HINT, issues: [] } });
    const ok = await GET(new Request(`${BASE}/api/v1/x`, { headers: { authorization: `Bearer ${key}` } }), noParams);
    expect(await ok.json()).toEqual({ name: "ada@x.test" });
  });

  it("route: the principal, then the query and body by their schemas, each failure in the one answer shape", async () => {
    const POST = route<{ id: string }, z.ZodObject<{ n: z.ZodCoercedNumber }>, z.ZodObject<{ note: z.ZodString }>>(
      { accept: ["session"], query: z.object({ n: z.coerce.number() }), body: z.object({ note: z.string() }) },
      async ({ params, principal, query, body }) => Response.json({ id: params.id, by: principal.name, query, body }),
    );
    const call = (url: string, headers: Record<string, string>, body: string) =>
      POST(new Request(`${BASE}${url}`, { method: "POST", headers, body }), { params: Promise.resolve({ id: "r1" }) });
    const json = { "content-type": "application/json" };

    const anonymous = await call("/api/x?n=1", json, '{"note":"hi"}');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: { code: "unauthorized", message: SESSION_HINT, issues: [] } });

    const badQuery = await call("/api/x?n=abc", { ...json, cookie }, '{"note":"hi"}');
    expect(badQuery.status).toBe(400);
    expect(await badQuery.json()).toMatchObject({
      error: { code: "invalid_input", message: "The query parameters are not valid.", issues: [{ path: "n" }] },
    });

    const badBody = await call("/api/x?n=2", { ...json, cookie }, '{"note":3}');
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toMatchObject({
      error: { code: "invalid_input", message: "The request body is not valid.", issues: [{ path: "note" }] },
    });

    const ok = await call("/api/x?n=2", { ...json, cookie }, '{"note":"hi"}');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ id: "r1", by: "ada@x.test", query: { n: 2 }, body: { note: "hi" } });
  });

  it("route: an operation's AppError keeps its status; a route with its own error answer gives it", async () => {
    const GET = route({ accept: ["api_key"] }, async () => {
      throw new AppError("not_found", "No report 'r9'.");
    });
    const missing = await GET(new Request(`${BASE}/api/x`, { headers: { authorization: `Bearer ${key}` } }), noParams);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "No report 'r9'.", issues: [] } });

    const plain = route<{ token: string }>(
      {
        accept: ["share_token"],
        shareToken: ({ token }) => token,
        answerError: () => new Response("Something went wrong\n", { status: 500 }),
      },
      async ({ principal }) => {
        expect(principal.readOnly).toBe(true);
        throw new Error("boom");
      },
    );
    const failed = await plain(new Request(`${BASE}/share/t/export`), { params: Promise.resolve({ token: "t" }) });
    expect([failed.status, await failed.text()]).toEqual([500, "Something went wrong\n"]);

    const open = publicRoute(() => Response.json({ ok: true }));
    expect(await (await open(new Request(`${BASE}/api/x`))).json()).toEqual({ ok: true });
  });
});
