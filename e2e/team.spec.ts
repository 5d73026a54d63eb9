import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const API_KEY = process.env.BRANCHPOINT_API_KEY ?? "e2e-test-key-0123456789";
const RECORDED = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

async function newVisitor(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  return context.newPage();
}

test.describe("team mode", () => {
  test("nothing but share links, health and sign-in is reachable without an account or a key", async ({
    browser,
    baseURL,
    request,
  }) => {
    const page = await newVisitor(browser, baseURL);
    await page.goto("/sessions");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fsessions$/);
    const anonymous = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const api = await anonymous.request.get("/api/v1/sessions");
    expect(api.status()).toBe(401);
    expect((await api.json()) as unknown).toMatchObject({ error: { code: "unauthorized" } });
    expect((await anonymous.request.get("/api/health")).status()).toBe(200);
    // A wrong password says nothing about whether the email exists.
    const wrong = await anonymous.request.post("/api/auth/sign-in/email", {
      data: { email: "admin@e2e.test", password: "not-the-password" },
    });
    const unknown = await anonymous.request.post("/api/auth/sign-in/email", {
      data: { email: "nobody@e2e.test", password: "not-the-password" },
    });
    expect(wrong.status()).toBe(401);
    expect(unknown.status()).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
    await anonymous.close();
    await page.context().close();
    // The scripts' admin key still works.
    const withKey = await request.get("/api/v1/sessions?limit=1", { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(withKey.status()).toBe(200);
  });

  test("an admin invites an analyst, makes them a viewer, and deactivates them; each step is audited", async ({
    page,
    browser,
    baseURL,
    playwright,
  }) => {
    // Three people's pages, a replay run by a worker and a report: about 40 s on a quiet machine, more beside the
    // other shard and the database tests.
    test.setTimeout(150_000);
    // Admin: an invitation link for an analyst.
    await page.goto("/settings/team");
    await page.getByLabel("Role", { exact: true }).selectOption("analyst");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const link = await page.getByTestId("invite-link").textContent();
    expect(link).toMatch(/\/invite\/[\w-]{20,}$/);

    // The invited person makes an account and lands on the dashboard as an analyst.
    const ana = await newVisitor(browser, baseURL);
    await ana.goto(link!);
    await expect(ana.getByText("You are invited as analyst")).toBeVisible();
    await ana.getByLabel("Name").fill("Ana");
    await ana.getByLabel("Email").fill("ana@e2e.test");
    await ana.getByLabel("Password (8 characters or more)").fill("ana-password-1");
    await ana.getByRole("button", { name: "Create account" }).click();
    await expect(ana).toHaveURL(/\/sessions$/);
    await expect(ana.getByTestId("signed-in-as")).toHaveText("ana@e2e.test analyst");
    // The same link does not work twice.
    const again = await newVisitor(browser, baseURL);
    await again.goto(link!);
    await expect(again.getByRole("alert").filter({ hasText: "invitation" })).toHaveText(
      "This invitation was already used.",
    );
    await again.context().close();

    // An analyst sees the replay button.
    await ana
      .getByRole("link", { name: /refund/i })
      .first()
      .click();
    await expect(ana.getByRole("link", { name: "Replay this session" })).toBeVisible();
    // The page's address without the step it may have opened at (a failed run's link opens its failing step).
    const opened = new URL(ana.url());
    const sessionUrl = `${opened.origin}${opened.pathname}`;
    const sessionId = opened.pathname.split("/").pop()!;

    // Ana's own key acts with her role: from a script she starts a replay and writes a report, and both name her.
    await ana.goto("/settings/api-keys");
    await ana.getByLabel("Name").fill("ana's script");
    await ana.getByRole("button", { name: "Create key" }).click();
    const anaKey = (await ana.getByTestId("new-api-key").textContent())!.trim();
    await expect(ana.getByTestId("api-key-row").filter({ hasText: "ana's script" })).toContainText("ana@e2e.test");
    const script = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { authorization: `Bearer ${anaKey}` },
    });
    const started = await script.post("/api/v1/replays", { data: { sessionId, policy: RECORDED } });
    expect(started.status(), await started.text()).toBe(201);
    const replayId = ((await started.json()) as { replay: { id: string } }).replay.id;
    // Replays run as queued jobs: the report waits for this one to finish.
    await expect
      .poll(
        async () =>
          ((await (await script.get(`/api/v1/replays/${replayId}`)).json()) as { replay: { status: string } }).replay
            .status,
        {
          timeout: 60_000,
        },
      )
      .toBe("completed");
    const written = await script.post("/api/v1/reports", {
      data: { replayId, title: "Ana's finding", sections: { finding: "The refund tool was called twice." } },
    });
    expect(written.status(), await written.text()).toBe(201);
    const reportId = ((await written.json()) as { report: { id: string } }).report.id;
    await page.goto(`/replays/${replayId}`);
    await expect(page.getByText(/started .* by ana@e2e\.test/)).toBeVisible();
    await page.goto(`/reports/${reportId}`);
    await expect(page.getByText(/Created .* by ana@e2e\.test/)).toBeVisible();

    // Admin makes them a viewer.
    await page.goto("/settings/team");
    await page.getByLabel("Role of ana@e2e.test").selectOption("viewer");
    await expect(page.getByLabel("Role of ana@e2e.test")).toHaveValue("viewer");

    // The viewer's next page has no action buttons.
    await ana.goto(sessionUrl);
    await expect(ana.getByTestId("signed-in-as")).toHaveText("ana@e2e.test viewer");
    await expect(ana.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(ana.getByRole("link", { name: "Replay this session" })).toHaveCount(0);
    await expect(ana.getByRole("link", { name: "Import", exact: true })).toHaveCount(0);
    // Opening the replay form by its address says what is missing instead of offering a form that would fail.
    await ana.goto(`${sessionUrl}/replay`);
    await expect(ana.getByTestId("role-needed")).toHaveText(
      "Starting a replay needs the analyst role; you are signed in as a viewer. Ask an admin to change your role, or open the replays others have made.",
    );
    await expect(ana.getByRole("button", { name: /start/i })).toHaveCount(0);
    // Her key now acts as a viewer: it reads, but starting a replay or exporting traces is refused with 403.
    expect((await script.get("/api/v1/sessions?limit=1")).status()).toBe(200);
    const refused = await script.post("/api/v1/replays", { data: { sessionId, policy: RECORDED } });
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toEqual({
      error: {
        code: "forbidden",
        message: "ana@e2e.test (viewer) may not do this; it needs the analyst role.",
        issues: [],
      },
    });
    const traces = await script.post("/v1/traces", { data: { resourceSpans: [] } });
    expect(traces.status()).toBe(403);
    expect(await traces.text()).toContain("ana@e2e.test (viewer) may not do this; it needs the analyst role.");

    // A forged server-action call from the viewer is refused: replay the admin's "create policy" action with the viewer's cookie.
    await page.goto("/policies");
    const actionRequest = page.waitForRequest((r) => r.method() === "POST" && Boolean(r.headers()["next-action"]));
    await page.getByLabel("Policy name").fill("e2e forged-call check");
    await page.getByRole("button", { name: "Create and edit" }).click();
    const captured = await actionRequest;
    const forged = await ana.request.post(captured.url(), {
      headers: {
        "next-action": captured.headers()["next-action"]!,
        "content-type": captured.headers()["content-type"] ?? "text/plain;charset=UTF-8",
        accept: "text/x-component",
        origin: new URL(captured.url()).origin,
      },
      data: captured.postData() ?? "",
    });
    const forgedText = await forged.text();
    expect(forgedText).toContain('"code":"forbidden"');
    expect(forgedText).toContain("ana@e2e.test (viewer) may not do this; it needs the analyst role.");

    // Admin deactivates them: their next request fails.
    await page.goto("/settings/team");
    await page.getByTestId("user-ana@e2e.test").getByRole("button", { name: "Deactivate" }).click();
    await expect(page.getByTestId("user-ana@e2e.test").getByText("deactivated", { exact: true })).toBeVisible();
    await ana.goto(sessionUrl);
    await expect(ana).toHaveURL(/\/sign-in/);
    await ana.context().close();
    // …and so does her key.
    expect((await script.get("/api/v1/sessions?limit=1")).status()).toBe(401);
    await script.dispose();

    // The audit log names the admin for each change.
    await page.goto("/settings/audit");
    // Ana's rows only (other specs invite and change users of their own); an invitation names no one yet.
    const rows = page.getByTestId("audit-row").filter({ hasText: "ana@e2e.test" });
    await expect(rows.filter({ hasText: "user.deactivated" })).toContainText("admin@e2e.test");
    await expect(rows.filter({ hasText: "user.role_changed" })).toContainText("from: analyst · to: viewer");
    await expect(rows.filter({ hasText: "user.joined" })).toHaveCount(1);
    await expect(page.getByTestId("audit-row").filter({ hasText: "user.invited" }).first()).toContainText(
      "admin@e2e.test",
    );
  });

  test("executors are managed from scripts by an admin key, and each change is audited", async ({ request }) => {
    const auth = { authorization: `Bearer ${API_KEY}` };
    const created = await request.post("/api/v1/executors/tools", {
      headers: auth,
      data: { tool: "lookup_order", url: "http://127.0.0.1:9/tool", readOnly: true },
    });
    expect(created.status()).toBe(201);
    const { tool } = (await created.json()) as { tool: { id: string; tool: string; timeoutMs: number } };
    expect(tool).toMatchObject({ tool: "lookup_order", timeoutMs: 10000 });
    const bad = await request.post("/api/v1/executors/allowed-hosts", { headers: auth, data: { host: "http://x/y" } });
    expect(bad.status()).toBe(400);
    const host = await request.post("/api/v1/executors/allowed-hosts", {
      headers: auth,
      data: { host: "api.example.com" },
    });
    expect(host.status()).toBe(201);
    const list = (await (await request.get("/api/v1/executors/allowed-hosts", { headers: auth })).json()) as {
      hosts: { host: string }[];
    };
    expect(list.hosts.map((h) => h.host)).toContain("api.example.com");
    const removed = await request.delete(`/api/v1/executors/tools/${tool.id}`, { headers: auth });
    expect(((await removed.json()) as { tool: { id: string } }).tool.id).toBe(tool.id);
    expect((await request.delete(`/api/v1/executors/tools/${tool.id}`, { headers: auth })).status()).toBe(404);
    const audit = (await (
      await request.get("/api/v1/audit?action=executor.changed&actor=BRANCHPOINT_API_KEY", { headers: auth })
    ).json()) as {
      events: { actorName: string; target: string; detail: { change: string } }[];
    };
    // Newest first: this test's two changes (other specs change executors with the same key before it).
    expect(audit.events.slice(0, 2).map((e) => [e.actorName, e.target, e.detail.change])).toEqual([
      ["BRANCHPOINT_API_KEY", "lookup_order", "removed"],
      ["BRANCHPOINT_API_KEY", "lookup_order", "saved"],
    ]);
  });
});
