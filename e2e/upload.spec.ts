import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";

test("upload several files: the τ-bench sample, a new native session and a bad file, each with its own result", async ({
  page,
}) => {
  await page.goto("/import");
  await expect(page.getByRole("heading", { name: "Import sessions" })).toBeVisible();
  await expect(page.getByRole("link", { name: "JSON Schema" })).toHaveAttribute(
    "href",
    "/api/v1/schema/native-session.json",
  );

  const native = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as {
    externalId: string;
    title: string;
  };
  native.externalId = `upload-test:${Date.now()}`;
  native.title = "Uploaded refund run";
  const bad = { ...native, externalId: "upload-test:bad", events: [{ seq: 0, kind: "teleport" }] };

  await page.getByLabel("Session files").setInputFiles([
    {
      name: "gpt-4o-airline.sample.json",
      mimeType: "application/json",
      buffer: readFileSync("prisma/seed/tau-bench/gpt-4o-airline.sample.json"),
    },
    { name: "new-session.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(native)) },
    { name: "broken.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad)) },
  ]);

  // The τ-bench sample is part of the demo data: every session comes back as a duplicate, linked.
  const tau = page.locator('[data-testid="upload"][data-file="gpt-4o-airline.sample.json"]');
  await expect(tau).toHaveAttribute("data-state", "done");
  await expect(tau).toContainText("openai-chat");
  await expect(tau).toContainText("0 sessions created");
  await expect(tau.getByText("duplicate").first()).toBeVisible();

  const fresh = page.locator('[data-testid="upload"][data-file="new-session.json"]');
  await expect(fresh).toHaveAttribute("data-state", "done");
  await expect(fresh).toContainText("native");
  await expect(fresh).toContainText("1 session created");

  const broken = page.locator('[data-testid="upload"][data-file="broken.json"]');
  await expect(broken).toHaveAttribute("data-state", "failed");
  await expect(broken).toContainText("Nothing was imported from this file");
  await expect(broken.getByTestId("issue").filter({ hasText: "events[0].kind" })).toBeVisible();

  // The created session opens from its link.
  await fresh.getByRole("link", { name: "Uploaded refund run" }).click();
  await expect(page.getByRole("heading", { name: "Uploaded refund run" })).toBeVisible();
});

test("files chosen before the page's scripts have run are imported once the page is ready", async ({ page }) => {
  // Hold the page's scripts (not its styles, which the page waits for): the file picker is there, server-rendered, but nothing listens to it yet.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/chunks/*.js", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto("/import", { waitUntil: "commit" });
  const native = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as {
    externalId: string;
    title: string;
  };
  native.externalId = `upload-early:${Date.now()}`;
  native.title = "Chosen before the page was ready";
  await page
    .getByLabel("Session files")
    .setInputFiles([{ name: "early.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(native)) }]);
  await expect(page.getByTestId("upload")).toHaveCount(0);

  release();
  const early = page.locator('[data-testid="upload"][data-file="early.json"]');
  await expect(early).toHaveAttribute("data-state", "done");
  await expect(early).toContainText("1 session created");
  await expect(early.getByRole("link", { name: "Chosen before the page was ready" })).toBeVisible();
  // Taken once: not also by a replay of the change event.
  await expect(page.getByTestId("upload")).toHaveCount(1);
});

test("settings link their sections; an API key is shown once, works, and stops working when revoked", async ({
  page,
  request,
}) => {
  await page.goto("/settings");
  await expect(page.getByRole("link", { name: /Executors/ })).toHaveAttribute("href", "/settings/executors");
  await page.getByRole("link", { name: /API keys/ }).click();
  await expect(page.getByRole("heading", { name: "API keys" })).toBeVisible();

  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Give the key a name")).toBeVisible();

  const name = `upload-test-${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())!.trim();
  expect(key).toMatch(/^bp_/);
  const row = page.getByTestId("api-key-row").filter({ hasText: name });
  await expect(row).toContainText("active");
  await expect(row).toContainText(key.slice(0, 10));

  const ok = await request.get("/api/v1/sessions?limit=1", { headers: { authorization: `Bearer ${key}` } });
  expect(ok.status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("new-api-key")).toHaveCount(0); // shown once only
  await expect(row).not.toContainText("never");

  page.once("dialog", (d) => void d.accept());
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("revoked");
  const refused = await request.get("/api/v1/sessions?limit=1", { headers: { authorization: `Bearer ${key}` } });
  expect(refused.status()).toBe(401);
});
