import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "./fixtures";

/**
 * A second server, started by this spec on a fresh database with no account
 * (as a newcomer's first `npm start`), and single sign-on configured against a
 * real OpenID Connect issuer (the `oidc-provider` package) listening on this
 * machine. Its sign-in page is a plain form of ours (the package's own pages
 * load a web font from the internet).
 */
const APP_PORT = Number(process.env.E2E_PORT ?? 3100) + 10;
const APP = `http://127.0.0.1:${APP_PORT}`;
const CLIENT = { id: "branchpoint-e2e", secret: "e2e-oidc-client-secret-0123456789" };

let issuer: http.Server;
let issuerUrl = "";
let server: ChildProcess;
let setupLink = "";

async function startIssuer(): Promise<void> {
  const { default: Provider } = await import("oidc-provider");
  issuer = http.createServer();
  await new Promise<void>((resolve) => issuer.listen(0, "127.0.0.1", resolve));
  // `localhost`, not 127.0.0.1: the browser keeps the issuer's cookies apart from the app's.
  issuerUrl = `http://localhost:${(issuer.address() as AddressInfo).port}`;
  const provider = new Provider(issuerUrl, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${APP}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    cookies: { keys: ["e2e-oidc-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, email: `${sub}@sso.test`, email_verified: true, name: `Sam ${sub}` }),
    }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
  });
  const callback = provider.callback();
  issuer.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", issuerUrl);
    if (!url.pathname.startsWith("/interaction/")) {
      callback(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (req.method === "GET") {
        res.setHeader("content-type", "text/html; charset=utf-8");
        res.end(
          `<!doctype html><title>Test issuer</title><form method="post"><label>Login <input name="login"></label><button>Sign in at the issuer</button></form>`,
        );
        return;
      }
      let body = "";
      for await (const chunk of req) body += String(chunk);
      const accountId = new URLSearchParams(body).get("login") ?? "nobody";
      const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope("openid email profile");
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
}

async function startServer(): Promise<void> {
  server = spawn(process.execPath, ["scripts/e2e-server.mjs", String(APP_PORT)], {
    env: {
      ...process.env,
      E2E_FIRST_RUN: "1",
      BRANCHPOINT_OIDC_ISSUER: issuerUrl,
      BRANCHPOINT_OIDC_CLIENT_ID: CLIENT.id,
      BRANCHPOINT_OIDC_CLIENT_SECRET: CLIENT.secret,
      BRANCHPOINT_OIDC_NAME: "Test issuer",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  setupLink = await new Promise<string>((resolve, reject) => {
    server.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/\S+\/setup\?token=[\w-]+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    server.on("exit", (code) => reject(new Error(`the first-run server stopped (${code}):\n${output}`)));
  });
  // The link is printed before the port answers: wait for the health check.
  await expect
    .poll(async () => (await fetch(`${APP}/api/health`).catch(() => null))?.status ?? 0, { timeout: 60_000 })
    .toBe(200);
}

test.describe("first run and single sign-on (a server of its own)", () => {
  test.describe.configure({ mode: "serial" });
  test.use({ baseURL: APP, storageState: { cookies: [], origins: [] } });

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    await startIssuer();
    await startServer();
  });
  test.afterAll(async () => {
    server?.kill("SIGTERM");
    await new Promise<void>((resolve) => (issuer ? issuer.close(() => resolve()) : resolve()));
  });

  test("the printed setup link makes the first admin, who lands on the demo data; the link then stops working", async ({
    page,
    browser,
  }) => {
    await page.goto("/sessions");
    await expect(page).toHaveURL(/\/sign-in/);
    await expect(page.getByText("No account exists yet.")).toBeVisible();

    const wrong = await browser.newContext({ baseURL: APP });
    const wrongPage = await wrong.newPage();
    await wrongPage.goto("/setup?token=not-the-token");
    await wrongPage.getByLabel("Name").fill("Mallory");
    await wrongPage.getByLabel("Email").fill("mallory@e2e.test");
    await wrongPage.getByLabel("Password (8 characters or more)").fill("mallory-password");
    await wrongPage.getByRole("button", { name: "Create admin and sign in" }).click();
    // (Next's route announcer is an empty alert on every page: pick ours by its words.)
    await expect(wrongPage.getByRole("alert").filter({ hasText: "setup link" })).toHaveText(
      "This setup link is not valid; use the one the server printed at its last start.",
    );
    await wrong.close();

    await page.goto(setupLink.replace(/^http:\/\/[^/]+/, ""));
    await expect(page.getByRole("heading", { name: "Create the first admin" })).toBeVisible();
    await page.getByLabel("Name").fill("Fatima");
    await page.getByLabel("Email").fill("fatima@e2e.test");
    await page.getByLabel("Password (8 characters or more)").fill("fatima-password");
    await page.getByRole("button", { name: "Create admin and sign in" }).click();
    await expect(page).toHaveURL(/\/sessions$/);
    await expect(page.getByTestId("signed-in-as")).toHaveText("fatima@e2e.test admin");
    await expect(page.getByRole("link", { name: /refund/i }).first()).toBeVisible();

    await page.goto(setupLink.replace(/^http:\/\/[^/]+/, ""));
    await expect(page.getByRole("heading", { name: "Already set up" })).toBeVisible();
  });

  test("single sign-on through the local OpenID Connect issuer makes a viewer, named in the team list", async ({
    page,
    browser,
  }) => {
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "Sign in with Test issuer" }).click();
    await expect(page).toHaveURL(new RegExp(`^${issuerUrl}/interaction/`));
    await page.getByLabel("Login").fill("sam");
    await page.getByRole("button", { name: "Sign in at the issuer" }).click();
    await expect(page).toHaveURL(`${APP}/sessions`);
    await expect(page.getByTestId("signed-in-as")).toHaveText("sam@sso.test viewer");
    await expect(page.getByRole("link", { name: "Import", exact: true })).toHaveCount(0);

    // The admin made at first run sees them, signing in with the issuer, and the sign-in in the audit log.
    const admin = await browser.newContext({ baseURL: APP });
    const signIn = await admin.request.post("/api/auth/sign-in/email", {
      data: { email: "fatima@e2e.test", password: "fatima-password" },
    });
    expect(signIn.status()).toBe(200);
    const adminPage = await admin.newPage();
    await adminPage.goto("/settings/team");
    const row = adminPage.getByTestId("user-sam@sso.test");
    await expect(row).toContainText("Sam sam");
    await expect(row).toContainText("sso");
    await expect(adminPage.getByLabel("Role of sam@sso.test")).toHaveValue("viewer");
    await adminPage.goto("/settings/audit?action=auth.sign_in");
    await expect(adminPage.getByTestId("audit-row").filter({ hasText: "sam@sso.test" })).toHaveCount(1);
    await admin.close();
  });
});
