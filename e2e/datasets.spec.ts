import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

/** The demo refund session under a new id and title: a run of its own. */
async function importRefund(request: APIRequestContext, title: string, externalId: string): Promise<string> {
  const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as Record<string, unknown>;
  const res = await request.post("/api/v1/sessions", { headers: AUTH, data: { ...doc, externalId, title } });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Axe finds nothing serious and nothing sits past the screen's edge, at the desktop's width and a phone's. */
async function checkBothWidths(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    expect(await seriousViolations(page), `${name} at ${width}`).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `test-results/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("choose two sessions in the list, save them as a dataset, open it, and run an experiment over exactly those", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  const titles = ["A", "B", "C"].map((l) => `Dataset run ${l} ${stamp}`);
  const ids: string[] = [];
  for (const [i, title] of titles.entries()) ids.push(await importRefund(request, title, `dataset-${stamp}-${i}`));
  const dataset = `Cohort ${stamp}`;

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions?q=${stamp}`);
  await expect(page.getByTestId("session-row")).toHaveCount(3);
  const pick = (title: string) => page.getByRole("checkbox", { name: `Select ${title}`, exact: true });
  const bar = page.getByTestId("selection-bar");
  await expect(bar).toHaveCount(0);

  // Select all on this page, and again to clear; then two, one of them from the keyboard.
  const all = page.getByRole("checkbox", { name: "Select all sessions on this page" });
  await all.check();
  await expect(bar).toContainText("3 sessions selected:");
  await all.uncheck();
  await expect(bar).toHaveCount(0);
  await pick(titles[0]!).check();
  await pick(titles[1]!).focus();
  await page.keyboard.press("Space");
  await expect(pick(titles[1]!)).toBeChecked();
  await expect(bar).toContainText("2 sessions selected:");
  await expect(all).toHaveJSProperty("indeterminate", true);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/datasets-selection.png" });

  await bar.getByRole("button", { name: "Save as dataset…" }).click();
  await bar.getByRole("textbox", { name: "Dataset name", exact: true }).fill(dataset);
  await bar.getByRole("textbox", { name: "Description (optional)", exact: true }).fill("Two refund runs");
  await bar.getByRole("button", { name: "Save dataset" }).click();
  await expect(page.getByTestId("dataset-outcome")).toContainText(`Saved dataset "${dataset}" with 2 sessions.`);
  await expect(pick(titles[0]!)).not.toBeChecked();

  // The list of datasets holds it, with its size.
  await page.goto("/datasets");
  const row = page.getByTestId("dataset-row").filter({ hasText: dataset });
  await expect(row).toContainText("2");
  await checkBothWidths(page, "datasets-list");

  // Its page: exactly the two chosen, signed.
  await row.getByRole("link", { name: dataset }).click();
  await expect(page.getByRole("heading", { name: dataset, level: 1 })).toBeVisible();
  await expect(page.getByTestId("dataset-about")).toContainText("2 sessions · made by");
  const members = page.getByTestId("dataset-member");
  await expect(members).toHaveCount(2);
  await expect(members.filter({ hasText: titles[0]! })).toHaveCount(1);
  await expect(members.filter({ hasText: titles[1]! })).toHaveCount(1);
  await checkBothWidths(page, "dataset-page");
  const datasetUrl = page.url();
  const datasetId = datasetUrl.split("/datasets/")[1]!;

  // Run an experiment over it: the form starts on the dataset.
  await page.getByRole("link", { name: "Run an experiment over this dataset" }).click();
  await expect(page.getByRole("radio", { name: "A saved dataset" })).toBeChecked();
  await expect(page.getByTestId("cohort-size")).toContainText(`Cohort: 2 sessions of dataset ${dataset}`);
  await page.getByLabel("Policy version or preset").selectOption({ label: "Recorded only (preset)" });
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(`Over ${dataset}`);
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Start experiment over 2 sessions" }).click();

  await expect(page.getByRole("heading", { name: `Over ${dataset}` })).toBeVisible();
  await expect(page.getByTestId("experiment-dataset")).toHaveText(`dataset ${dataset} of `);
  await expect(page.getByTestId("experiment-dataset").getByRole("link", { name: dataset })).toHaveAttribute(
    "href",
    `/datasets/${datasetId}`,
  );
  const results = page.getByTestId("experiment-result");
  await expect(results).toHaveCount(2);
  await expect(results.filter({ hasText: titles[0]! })).toHaveCount(1);
  await expect(results.filter({ hasText: titles[1]! })).toHaveCount(1);
  const experimentUrl = page.url();

  // The dataset's page names the experiment; deleting the dataset leaves the experiment whole.
  await page.goto(datasetUrl);
  await expect(page.getByRole("link", { name: `Over ${dataset}` })).toBeVisible();
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete dataset" }).click();
  await expect(page).toHaveURL(/\/datasets$/);
  await expect(page.getByTestId("dataset-row").filter({ hasText: dataset })).toHaveCount(0);
  await page.goto(experimentUrl);
  await expect(page.getByTestId("experiment-dataset")).toContainText(`${dataset} (dataset deleted`);
  await expect(results).toHaveCount(2);
});

test("save a filter's matches as a dataset; the API refuses unknown ids, naming them, and writes nothing", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  const ids: string[] = [];
  for (const i of [0, 1]) ids.push(await importRefund(request, `Filtered run ${i} ${stamp}`, `filtered-${stamp}-${i}`));
  await page.goto(`/sessions?q=${stamp}`);
  await expect(page.getByTestId("session-row")).toHaveCount(2);
  await page.getByRole("button", { name: "Save this filter as a dataset…" }).click();
  const panel = page.getByTestId("save-filter");
  await expect(panel).toContainText("The 2 sessions the filter matches now; sessions imported later are not added.");
  await panel.getByRole("textbox", { name: "Dataset name", exact: true }).fill(`Filter ${stamp}`);
  await panel.getByRole("button", { name: "Save dataset" }).click();
  await expect(page.getByTestId("dataset-outcome")).toContainText(`Saved dataset "Filter ${stamp}" with 2 sessions.`);

  const bad = await request.post("/api/v1/datasets", {
    headers: AUTH,
    data: { name: `Bad ${stamp}`, sessionIds: [ids[0], `ghost-${stamp}`] },
  });
  expect(bad.status()).toBe(400);
  const body = (await bad.json()) as { error: { message: string; issues: { path: string; message: string }[] } };
  expect(body.error.message).toBe(`1 id names no session: ghost-${stamp}. Nothing was changed.`);
  const listed = (await (await request.get("/api/v1/datasets", { headers: AUTH })).json()) as {
    datasets: { name: string; size: number }[];
  };
  expect(listed.datasets.filter((d) => d.name === `Bad ${stamp}`)).toEqual([]);
  expect(listed.datasets.find((d) => d.name === `Filter ${stamp}`)?.size).toBe(2);
});
