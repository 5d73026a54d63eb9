import { readFileSync } from "node:fs";
import http from "node:http";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import type { APIRequestContext, Page } from "@playwright/test";
import { deepArray, deepNativeText, nativeCases, nativeDoc } from "../lib/hostile/corpus";
import { expect, test } from "./fixtures";
import { refundSessionId, settledStatus } from "./replay-form";
import { ADMIN_STATE } from "./global-setup";

// The hostile-input suite (issue 10): a fixed corpus and fast-check properties
// against every JSON route over real HTTP, on whichever engine the server runs
// (E2E_DATABASE_URL unset: the embedded database; set: PostgreSQL). It counts
// responses with a 5xx status and writes left behind by refused requests, and
// prints both figures; each must be 0.

const KEY = "e2e-test-key-0123456789";
const bearer = { authorization: `Bearer ${KEY}` };
const ENGINE = process.env.E2E_DATABASE_URL ? "postgres" : "pglite";
const PORT = Number(process.env.E2E_PORT ?? 3100);

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** The signed-in admin's cookie (e2e/global-setup.ts), for the dashboard's own upload route, which takes no key. */
function sessionCookie(): string {
  const state = JSON.parse(readFileSync(ADMIN_STATE, "utf8")) as { cookies: { name: string; value: string }[] };
  return state.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
}

/** A request with exactly the headers given (Host included): Playwright's client would set its own Host. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Raw> {
  // The upload route is the dashboard's: it is reached signed in, never with a key.
  const session: Record<string, string> = path === "/api/import" ? { cookie: sessionCookie() } : {};
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: PORT, method, path, headers: { host: `127.0.0.1:${PORT}`, ...session, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** What the API can see of the database: sessions (id and events), replays and policies. */
async function state(request: APIRequestContext): Promise<string> {
  const ids: string[] = [];
  for (const path of ["/api/v1/sessions", "/api/v1/replays"]) {
    let cursor: string | null = null;
    do {
      const res = await request.get(`${path}?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { headers: bearer });
      expect(res.status()).toBe(200);
      const body = (await res.json()) as {
        sessions?: { id: string; eventCount: number }[];
        replays?: { id: string; status: string; stepCount: number }[];
        nextCursor: string | null;
      };
      for (const s of body.sessions ?? []) ids.push(`s:${s.id}:${s.eventCount}`);
      for (const r of body.replays ?? []) ids.push(`r:${r.id}:${r.status}:${r.stepCount}`);
      cursor = body.nextCursor;
    } while (cursor);
  }
  const checks = (await (await request.get("/api/v1/checks", { headers: bearer })).json()) as {
    checks: { id: string }[];
  };
  for (const c of checks.checks) ids.push(`c:${c.id}`);
  return ids.sort().join("\n");
}

type Tally = { requests: number; serverErrors: string[]; partialWrites: string[]; accepted: number };
const tally: Tally = { requests: 0, serverErrors: [], partialWrites: [], accepted: 0 };

type Route = { path: string; headers: Record<string, string> };
const JSON_HEADERS = { "content-type": "application/json", ...bearer };
const ROUTES: Route[] = [
  { path: "/api/v1/sessions", headers: JSON_HEADERS },
  { path: "/api/import", headers: { "content-type": "application/json", "x-branchpoint-upload": "1" } },
  { path: "/v1/traces", headers: JSON_HEADERS },
  { path: "/v1/traces/ingest", headers: JSON_HEADERS },
  { path: "/api/v1/policies", headers: JSON_HEADERS },
  { path: "/api/v1/replays", headers: JSON_HEADERS },
  { path: "/api/v1/reports", headers: JSON_HEADERS },
  { path: "/api/v1/replays/nope/fixtures", headers: JSON_HEADERS },
  { path: "/api/v1/replays/nope/approvals", headers: JSON_HEADERS },
  { path: "/api/v1/reports/nope/share", headers: JSON_HEADERS },
  { path: "/api/v1/checks", headers: JSON_HEADERS },
  { path: "/api/v1/experiments", headers: JSON_HEADERS },
  { path: "/api/v1/investigations", headers: JSON_HEADERS },
];

/** The state after the last refused probe: a refusal leaves it as it was, so the next probe starts from it. */
let known: string | null = null;
// A test's own writes outside probe() (its set-up) change the state: each test reads it afresh.
test.beforeEach(() => {
  known = null;
});

/** Sends one body; a 5xx is counted; a refused one must leave the state as it was. */
async function probe(request: APIRequestContext, route: Route, body: string | Buffer, label: string, extra = {}) {
  const before = known ?? (await state(request));
  const res = await raw("POST", route.path, { ...route.headers, ...extra }, body);
  tally.requests++;
  if (res.status >= 500) tally.serverErrors.push(`${route.path} ${label}: ${res.status} ${res.body.slice(0, 200)}`);
  if (res.status >= 200 && res.status < 300) {
    tally.accepted++;
    known = null;
    return res;
  }
  known = await state(request);
  if (known !== before) tally.partialWrites.push(`${route.path} ${label}: ${res.status}`);
  return res;
}

const LONE = ["\ud800", "\udfff", "a\ud83d", "\u0000", "\ud83d\ude00"];
const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(...LONE, "__proto__", "constructor", "prototype", "%ff", "x".repeat(20_000)),
  fc.string({ unit: "binary" }),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(-1, 3e9, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, 0.5, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom("__proto__", "constructor")), tie("value"), {
      maxKeys: 4,
    }),
  ),
})).value;

/** Valid-looking documents with one hostile field: closer to what importers accept, so they reach the writes. */
const nearlyValidNative = fc
  .record({
    field: fc.constantFrom("durationMs", "seq", "name", "startedAt", "parentSeq", "usage"),
    value: hostileJson,
  })
  .map(({ field, value }) => JSON.stringify(nativeDoc({ event: { [field]: value } })));

test.describe.configure({ mode: "serial" });

test.describe(`hostile input on ${ENGINE}`, () => {
  test("the corpus: every class from the probe gets a 4xx naming the field, or is accepted repaired", async ({
    request,
  }) => {
    test.setTimeout(300_000);
    for (const route of ROUTES.slice(0, 2)) {
      for (const c of nativeCases()) {
        const res = await probe(request, route, c.body, c.name);
        if (c.accepted) expect(res.status, `${route.path} ${c.name}`).toBe(201);
        else {
          expect(res.status, `${route.path} ${c.name}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          if (c.names) expect(res.body).toContain(c.names);
        }
      }
    }
    // Deep JSON on every JSON route: a 400 naming the limit.
    for (const route of ROUTES) {
      const res = await probe(request, route, `{"a":${deepArray(3_000)}}`, "nesting 3,000 deep");
      expect(res.status, `${route.path}: ${res.body.slice(0, 200)}`).toBe(400);
      expect(res.body).toContain("512");
    }
    // A gzip bomb: 60 MB of JSON in well under 1 MB.
    const bomb = gzipSync(Buffer.from(`{"resourceSpans":[],"pad":"${" ".repeat(60 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const bombed = await probe(request, ROUTES[2]!, bomb, "gzip bomb", { "content-encoding": "gzip" });
    expect(bombed.status).toBe(413);
    expect(bombed.body).toContain("inflates to more than");
    // OTLP timestamps as the number 1e308.
    const otlp = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "5b8efff798038103d269b633813fc60d",
                  spanId: "a000000000000009",
                  name: "x",
                  startTimeUnixNano: 1e308,
                },
              ],
            },
          ],
        },
      ],
    });
    const huge = await probe(request, ROUTES[2]!, otlp, "startTimeUnixNano 1e308");
    expect(huge.status).toBe(400);
    expect(huge.body).toContain("startTimeUnixNano");
    // An Agents item id of 20,000 characters.
    const longId = JSON.stringify({
      data: [{ object: "trace", id: `trace_${"x".repeat(20_000)}`, workflow_name: "w" }],
    });
    const long = await probe(request, ROUTES[3]!, longId, "a 20,000-character id");
    expect(long.status).toBe(400);
    expect(long.body).toContain("data[0].id");
    // Deep native text on the import page's route too.
    const deep = await probe(request, ROUTES[1]!, deepNativeText(5_000), "deep native");
    expect(deep.status).toBe(400);
  });

  test("properties: random and nearly-valid hostile JSON on every JSON route never gets a 5xx or leaves a partial write", async ({
    request,
  }) => {
    test.setTimeout(600_000);
    const runs = Number(process.env.HOSTILE_RUNS ?? 25);
    for (const route of ROUTES) {
      await fc.assert(
        fc.asyncProperty(hostileJson, async (value) => {
          const res = await probe(request, route, JSON.stringify(value), "fast-check");
          return res.status < 500;
        }),
        { numRuns: runs, seed: 20261130 },
      );
    }
    for (const route of ROUTES.slice(0, 2)) {
      await fc.assert(
        fc.asyncProperty(nearlyValidNative, async (body) => {
          const res = await probe(request, route, body, "nearly valid");
          return res.status < 500;
        }),
        { numRuns: runs * 2, seed: 20261130 },
      );
    }
  });

  test.afterAll(() => {
    console.log(
      `hostile input on ${ENGINE}: ${tally.requests} requests, ${tally.serverErrors.length} server errors, ` +
        `${tally.partialWrites.length} partial writes (${tally.accepted} accepted)`,
    );
    for (const e of [...tally.serverErrors, ...tally.partialWrites]) console.log(`  ${e}`);
  });

  test("figures: 0 server errors, 0 partial writes", () => {
    expect(tally.requests).toBeGreaterThan(100);
    expect(tally.serverErrors).toEqual([]);
    expect(tally.partialWrites).toEqual([]);
  });
});

test.describe("the HTTP edge", () => {
  test("an idle keep-alive connection is still answered after Node's default 5 s", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = http.get({ host: "127.0.0.1", port: PORT, path: "/api/health", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on("error", reject);
      });
    try {
      const first = await get();
      await new Promise((r) => setTimeout(r, 6_000));
      const second = await get();
      expect([first.status, second.status]).toEqual([200, 200]);
      // The same connection: the server kept it open while it idled.
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  });

  test("a Host this server does not answer to (DNS rebinding) is refused everywhere; IP literals and localhost work", async () => {
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/settings"],
      ["POST", "/api/import"],
      ["GET", "/api/v1/sessions"],
      ["POST", "/v1/traces"],
      ["POST", "/policies"],
    ] as const) {
      const res = await raw(method, path, {
        host: `rebind.example:${PORT}`,
        origin: `http://rebind.example:${PORT}`,
        "x-branchpoint-upload": "1",
        "next-action": "0".repeat(40),
        ...bearer,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toContain("does not answer to the host");
    }
    // X-Forwarded-Host is not trusted unless configured: a rebinding page cannot launder its Host through it.
    const forwarded = await raw("GET", "/", {
      host: `rebind.example:${PORT}`,
      "x-forwarded-host": `127.0.0.1:${PORT}`,
    });
    expect(forwarded.status).toBe(403);
    expect((await raw("GET", "/api/health", { host: `localhost:${PORT}` })).status).toBe(200);
    expect((await raw("GET", "/api/health", { host: `127.0.0.1:${PORT}` })).status).toBe(200);
  });

  test("TRACE and other unsupported methods get 405; a %ff path segment gets 400 on every route", async () => {
    for (const method of ["TRACE", "PROPFIND"]) {
      const res = await raw(method, "/api/v1/sessions", bearer);
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toContain("GET");
    }
    // Node's HTTP parser does not know TRACK and answers 400 itself, before any of our code runs.
    expect((await raw("TRACK", "/api/v1/sessions", bearer)).status).toBe(400);
    const routes = [
      "/api/v1/sessions/%ff",
      "/api/v1/policies/%ff",
      "/api/v1/policies/%ff/versions",
      "/api/v1/replays/%ff",
      "/api/v1/replays/%ff/comparison",
      "/api/v1/replays/%ff/fixtures",
      "/api/v1/replays/%ff/approvals",
      "/api/v1/reports/%ff",
      "/api/v1/reports/%ff/share",
      "/api/v1/shares/%ff",
      "/api/v1/experiments/%ff",
      "/api/v1/investigations/%ff",
      "/investigations/%ff",
      "/api/reports/%ff/export",
      "/share/%ff",
      "/share/%ff/export",
      "/sessions/%ff",
      "/policies/%ff",
      "/replays/%ff",
      "/reports/%ff",
    ];
    for (const path of routes) {
      const res = await raw("GET", path, bearer);
      expect(res.status, path).toBe(400);
      expect(res.body).toContain("malformed percent-escape");
    }
  });

  test("security headers on pages, routes and share pages; share pages stay public and unindexed", async () => {
    for (const path of ["/", "/settings", "/settings/api-keys", "/policies", "/api/health", "/share/not-a-token"]) {
      const res = await raw("GET", path);
      const csp = String(res.headers["content-security-policy"]);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers["x-frame-options"], path).toBe("DENY");
      expect(res.headers["x-content-type-options"], path).toBe("nosniff");
      expect(res.headers["referrer-policy"], path).toBe(
        path.startsWith("/share/") ? "no-referrer" : "strict-origin-when-cross-origin",
      );
    }
    const share = await raw("GET", "/share/not-a-token");
    expect(share.status).toBe(404); // public: no login, no 401/403, and an unknown token is a plain 404
    expect(share.headers["x-robots-tag"]).toBe("noindex, nofollow, noarchive");
  });

  test("the policy editor's Monaco runs under the CSP with no violation", async ({ page }) => {
    const violations = await watchCsp(page);
    await page.goto("/policies");
    await page.getByLabel("Policy name").fill(`CSP check ${Date.now()}`);
    await page.getByRole("button", { name: "Create and edit" }).click();
    await expect(page).toHaveURL(/\/policies\/[^/]+$/);
    const editor = page.locator('[data-testid^="monaco"]', {
      has: page.getByRole("textbox", { name: "Policy JSON", exact: true }),
    });
    await expect(editor.locator(".view-lines")).toContainText('"on_miss"');
    // The JSON worker answers: a syntax error gets Monaco's squiggle (a marker only the worker computes).
    await editor.locator(".view-lines").click();
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.type("}}}");
    await expect(editor.locator(".squiggly-error").first()).toBeVisible();
    await page.screenshot({ path: "test-results/hostile-monaco-csp.png" });
    expect(violations).toEqual([]);
  });

  test("the comparison page's Monaco diff editor runs under the CSP with no violation", async ({ page, request }) => {
    const violations = await watchCsp(page);
    // A branch that differs from its base at step 1 (one changed pair, p1-1): look up another order, answered by a fixture.
    const paused = await request.post("/api/v1/replays", {
      headers: bearer,
      data: {
        sessionId: await refundSessionId(request),
        policy: {
          model: "recorded-only",
          drift: "continue_to_terminal",
          tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
        },
        edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "4822" } }],
      },
    });
    expect(paused.status()).toBe(201);
    const { replay } = (await paused.json()) as { replay: { id: string; status: string } };
    // The replay runs on a worker: wait for it to pause on the call nobody recorded.
    await expect
      .poll(async () => {
        const r = await request.get(`/api/v1/replays/${replay.id}`, { headers: bearer });
        return ((await r.json()) as { replay: { status: string } }).replay.status;
      })
      .toBe("paused");
    const resumed = await request.post(`/api/v1/replays/${replay.id}/fixtures`, {
      headers: bearer,
      data: { output: { order_id: "4822", status: "delivered" }, note: "CSP check" },
    });
    expect(resumed.status()).toBe(200);
    expect(await settledStatus(request, replay.id)).toBe("completed");

    await page.goto(`/replays/${replay.id}/compare?pair=p1-1`);
    await expect(page.getByTestId("pair-detail")).toContainText("lookup_order");
    const diff = page.getByTestId("pair-detail").getByTestId("monaco-diff");
    await expect(diff.locator(".monaco-diff-editor")).toBeVisible();
    await expect(diff).toContainText("4822");
    // The diff is computed in Monaco's editor worker: its insert/delete decorations appear only if the worker ran.
    await expect(diff.locator(".char-insert, .line-insert").first()).toBeVisible();
    await expect(diff.locator(".char-delete, .line-delete").first()).toBeVisible();
    await page.screenshot({ path: "test-results/hostile-monaco-diff-csp.png" });
    expect(violations).toEqual([]);
  });
});

/** Collects CSP violations (the DOM event and Chromium's console messages) on a page from its first load. */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Failed to load worker|Refused to/i.test(m.text())) violations.push(m.text());
  });
  page.on("pageerror", (e) => {
    if (/Content Security Policy|worker/i.test(e.message)) violations.push(e.message);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Refused to load: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return violations;
}
