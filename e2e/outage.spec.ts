import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { expect, test } from "./fixtures";

// A PostgreSQL server that stops letting the app's database in (ALLOW_CONNECTIONS
// false and its connections ended: SQLSTATE 55000 at every connect), served by
// its own `next start` on a database of its own, then let back in. Every kind of
// route answers 503 with Retry-After meanwhile, a page says the database is
// unreachable, and all of it works again after.

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const KEY = "outage-e2e-key-0123456789";
const ADMIN = { email: "admin@outage.test", password: "outage-admin-password" };
const name = `branchpoint_e2e_outage_${randomBytes(5).toString("hex")}`;

async function admin(sql: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql, values);
  } finally {
    await c.end();
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let server: ChildProcess | null = null;
let base = "";

test.describe("the database refusing connections", () => {
  test.use({ storageState: { cookies: [], origins: [] } });

  test.beforeAll(async () => {
    await admin(`CREATE DATABASE ${name}`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(
      process.execPath,
      [path.join("node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1", "-p", String(port)],
      {
        stdio: ["ignore", "ignore", "inherit"],
        env: {
          ...process.env,
          DATABASE_URL: `${ADMIN_URL.replace(/\/[^/]*$/, "")}/${name}`,
          BRANCHPOINT_API_KEY: KEY,
          BRANCHPOINT_ADMIN_EMAIL: ADMIN.email,
          BRANCHPOINT_ADMIN_PASSWORD: ADMIN.password,
          BRANCHPOINT_DEMO_DATA: "off",
          BRANCHPOINT_PUBLIC_URL: base,
          NEXT_TELEMETRY_DISABLED: "1",
        },
      },
    );
    const until = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > until) throw new Error("the outage test's server did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  test.afterAll(async () => {
    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    if (server) {
      const exited = new Promise((r) => server!.once("exit", r));
      server.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    }
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  test("every kind of route answers 503 with Retry-After, the pages say so, and all recovers", async ({ page }) => {
    test.setTimeout(120_000);
    const signIn = await page.request.post(`${base}/api/auth/sign-in/email`, { data: ADMIN });
    expect(signIn.status()).toBe(200);

    const key = { authorization: `Bearer ${KEY}` };
    const calls = {
      api: () => page.request.get(`${base}/api/v1/sessions`, { headers: key }),
      "route outside apiRoute": () => page.request.get(`${base}/api/replays/nope/coverage.csv`),
      otlp: () =>
        page.request.post(`${base}/v1/traces`, {
          headers: { ...key, "content-type": "application/json" },
          data: { resourceSpans: [] },
        }),
      auth: () => page.request.get(`${base}/api/auth/get-session`),
      health: () => page.request.get(`${base}/api/health`),
    };
    const statuses = async () => {
      const out: Record<string, { status: number; retryAfter: string | null }> = {};
      for (const [label, call] of Object.entries(calls)) {
        const r = await call();
        out[label] = { status: r.status(), retryAfter: r.headers()["retry-after"] ?? null };
      }
      return out;
    };
    const up = {
      api: { status: 200, retryAfter: null },
      "route outside apiRoute": { status: 404, retryAfter: null },
      otlp: { status: 200, retryAfter: null },
      auth: { status: 200, retryAfter: null },
      health: { status: 200, retryAfter: null },
    };
    expect(await statuses()).toEqual(up);

    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]);

    const down = { status: 503, retryAfter: "5" };
    expect(await statuses()).toEqual({
      api: down,
      "route outside apiRoute": down,
      otlp: down,
      auth: down,
      health: down,
    });
    const otlp = await calls.otlp();
    expect(await otlp.json()).toMatchObject({ code: 14 });

    const response = await page.goto(`${base}/sessions`);
    expect(response?.status()).toBe(500);
    await expect(page.getByRole("heading", { name: "The database is unreachable" })).toBeVisible();
    await expect(page.getByText("try again in a few seconds")).toBeVisible();

    await admin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    expect(await statuses()).toEqual(up);
    await page.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByRole("heading", { name: "Sessions", exact: true })).toBeVisible();
  });
});
