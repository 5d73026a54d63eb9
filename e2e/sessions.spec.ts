import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

test("browse sessions: list, filter by tool, open one, expand a failed tool call", async ({ page }) => {
  await page.goto("/sessions");
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  const rows = page.getByTestId("session-row");
  // The demo data: 10 sessions (other specs, e.g. e2e/ingest-*.spec.ts, may have added more before this one runs).
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThanOrEqual(10);

  await page.getByLabel("Tool used").selectOption("book_reservation");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/tool=book_reservation/);
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) await expect(row).toContainText("book_reservation");

  await rows.filter({ hasText: "task 0, trial 3" }).getByRole("link").click();
  await expect(page.getByRole("heading", { name: /task 0, trial 3/ })).toBeVisible();
  // The agent's version reads as a version, whatever it looks like ("gpt-4o" here, not "vgpt-4o").
  await expect(page.getByText("tau-bench-airline-agent generic version gpt-4o", { exact: true })).toBeVisible();

  // The page opens on the conversation; the steps view lists every call, and the URL keeps the view.
  await expect(page.getByRole("tab", { name: "Conversation" })).toHaveAttribute("aria-selected", "true");
  await page.getByRole("tab", { name: "Steps" }).click();
  await expect(page).toHaveURL(/view=timeline/);

  // book_reservation was called 7 times; the last call repeats an earlier identical one and got another reservation.
  const bookings = page.locator('details[data-kind="tool_call"][data-name="book_reservation"]');
  await expect(bookings).toHaveCount(7);
  const repeated = bookings.last();
  await expect(repeated.locator("summary")).toContainText("repeat #2");
  await repeated.locator("summary").click();
  await expect(repeated.getByText("Result", { exact: true })).toBeVisible();
  await expect(repeated).toContainText("HATHAV");

  // Failed calls stand out and show their error when expanded.
  const failed = page
    .locator('details[data-kind="tool_call"]', { has: page.getByText("failed", { exact: true }) })
    .first();
  await failed.locator("summary").click();
  await expect(failed.getByText("Error", { exact: true })).toBeVisible();
});

test("search finds sessions by their text, and an empty result says what to do", async ({ page, request }) => {
  // A run of its own with a word no other has: other specs import many copies of the demo's runs.
  const word = `zebracorn${Date.now().toString(36)}`;
  const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as {
    externalId: string;
    title: string;
  };
  doc.externalId = `search-test:${word}`;
  doc.title = `Refund for the ${word} order`;
  const created = await request.post("/api/v1/sessions", { headers: AUTH, data: doc });
  expect(created.status(), await created.text()).toBe(201);

  await page.goto(`/sessions?q=${word}`);
  await expect(page.getByTestId("session-row")).toHaveCount(1);
  await expect(page.getByTestId("session-row")).toContainText(`Refund for the ${word} order`);
  // The header counts what matches among every run while a filter is on.
  await expect(page.getByText(/^1 of \d+ recorded runs · newest first$/)).toBeVisible();
  await page.goto("/sessions?q=no-such-thing-anywhere");
  await expect(page.getByText("No session matches these filters")).toBeVisible();
});

test("an unknown session id shows a not-found page", async ({ page }) => {
  const response = await page.goto("/sessions/does-not-exist");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Session not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "All sessions" })).toHaveAttribute("href", "/sessions");
});

test("watching the list shows runs as they arrive, and says how many came", async ({ page, request }) => {
  await page.goto("/sessions");
  const watch = page.getByRole("button", { name: "Watch for new runs" });
  await watch.click();
  const stop = page.getByRole("button", { name: "Stop watching" });
  await expect(stop).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("live-tail").getByRole("status")).toHaveText("Watching: no new run yet");
  // A run arrives from a script: it shows at the top of the list without a reload.
  const title = `Arrived while watching ${Date.now()}`;
  const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as Record<string, unknown>;
  const res = await request.post("/api/v1/sessions", {
    headers: AUTH,
    data: { ...doc, externalId: `live-${Date.now()}`, title },
  });
  expect(res.status()).toBe(201);
  await expect(page.getByTestId("session-row").first()).toContainText(title, { timeout: 15_000 });
  await expect(page.getByTestId("live-tail").getByRole("status")).toContainText("1 new run since you started watching");
  await stop.click();
  await expect(page.getByRole("button", { name: "Watch for new runs" })).toHaveAttribute("aria-pressed", "false");
});
