import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { mkdirSync, readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

const SHOTS = "test-results/screens";
mkdirSync(SHOTS, { recursive: true });
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** The ids the API lists for a query: what the page must show, in that order. */
async function apiIds(request: APIRequestContext, query: string): Promise<string[]> {
  const res = await request.get(`/api/v1/sessions?limit=50&${query}`, { headers: AUTH });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
}

const rowIds = (page: Page) =>
  page
    .getByTestId("session-row")
    .locator("td:first-child a")
    .evaluateAll((as) => as.map((a) => a.getAttribute("href")!.replace("/sessions/", "")));

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("at 1280 px the session list sorts by a header, filters by errors, keeps the order in the URL, and chooses its columns", async ({
  page,
  request,
}) => {
  await page.setViewportSize(DESK);
  await page.goto("/sessions");
  const table = page.getByRole("table", { name: "Sessions" });
  const header = (name: string) => table.getByRole("columnheader", { name });

  // Every usual column is there, Cost and Imported too, and the table fits: nothing scrolls sideways.
  for (const name of [
    "Agent",
    "Status",
    "Steps",
    "Errors",
    "Tokens",
    "Cost",
    "Duration",
    "Started (UTC)",
    "Imported (UTC)",
  ])
    await expect(header(name)).toBeVisible();
  const frame = page.getByRole("region", { name: "Sessions" });
  expect(await frame.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);

  // A header sorts: most expensive first, then turned round.
  await expect(header("Cost")).toHaveAttribute("aria-sort", "none");
  await header("Cost").getByRole("link").click();
  await expect(page).toHaveURL(/\?sort=-costUsd$/);
  await expect(header("Cost")).toHaveAttribute("aria-sort", "descending");
  expect(await rowIds(page)).toEqual(await apiIds(request, "sort=-costUsd"));
  await header("Cost").getByRole("link").click();
  await expect(page).toHaveURL(/\?sort=costUsd$/);
  await expect(header("Cost")).toHaveAttribute("aria-sort", "ascending");
  expect(await rowIds(page)).toEqual(await apiIds(request, "sort=costUsd"));

  // A filter keeps the order; the URL names only what is set (the form's empty fields are dropped).
  await page.getByText("More filters").click();
  await page.getByLabel("Errors at least").fill("1");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/\/sessions\?sort=costUsd&minErrors=1$/);
  const withErrors = await apiIds(request, "sort=costUsd&minErrors=1");
  expect(withErrors.length).toBeGreaterThan(0);
  expect(await rowIds(page)).toEqual(withErrors);
  await expect(header("Cost")).toHaveAttribute("aria-sort", "ascending");
  // The column chooser hides a column, and the browser remembers it.
  await page.getByText(/^Columns \(/).click();
  await page.getByRole("checkbox", { name: "Agent" }).uncheck();
  await expect(header("Agent")).toHaveCount(0);
  await page.reload();
  await expect(header("Cost")).toBeVisible();
  await expect(header("Agent")).toHaveCount(0);
  await page.getByText(/^Columns \(/).click();
  await page.getByRole("button", { name: "Show the usual columns" }).click();
  await expect(header("Agent")).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/session-list-${DESK.width}.png` });
});

test("on a 390 px phone the session list has nothing past the screen's edge", async ({ page }) => {
  await page.setViewportSize(PHONE);
  await page.goto("/sessions?sort=-steps");
  const row = page.getByTestId("session-row").first();
  await expect(row.getByTestId("session-figures")).toBeVisible();
  await expect(page.getByRole("table", { name: "Sessions" }).getByRole("columnheader", { name: "Cost" })).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/session-list-${PHONE.width}.png` });
});

test("the list's sessions download as JSON Lines for its filters, in its order, each with all its steps", async ({
  page,
  request,
}) => {
  await page.setViewportSize(DESK);
  await page.goto("/sessions?sort=costUsd&minErrors=1");
  const listed = await request.get("/api/v1/sessions?limit=200&sort=costUsd&minErrors=1", { headers: AUTH });
  const titles = ((await listed.json()) as { sessions: { title: string }[] }).sessions.map((s) => s.title);
  expect(titles.length).toBeGreaterThan(1);
  const link = page.getByTestId("export-sessions");
  await expect(link).toHaveText(`Export ${titles.length} sessions (JSON Lines)`);
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^branchpoint-sessions-\d{4}-\d\d-\d\d\.jsonl$/);
  const text = readFileSync(await download.path(), "utf8");
  const documents = text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { title: string; externalId: string | null; events: unknown[] });
  expect(documents.map((d) => d.title)).toEqual(titles);
  // Each line is a whole session, its steps all there (its import is tested against the store itself).
  const steps = ((await listed.json()) as { sessions: { eventCount: number }[] }).sessions.map((s) => s.eventCount);
  expect(documents.map((d) => d.events.length)).toEqual(steps);
});
