import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { AUTH, refundSessionId } from "./replay-form";
import {
  completedReplay,
  experimentCompleted,
  oneSpanTrace,
  PHONE,
  RECORDED,
  sidewaysScroll,
  startRecordedExperiment,
} from "./walkthrough-helpers";

/**
 * What a walk through every page found rough: pages that scrolled sideways on a phone, table
 * columns that ran into each other, labels with the wrong case or number, a summary with nothing
 * to say it opens, a title cut off on a phone, a separator left dangling.
 */

test("on a phone, the replay, latency, team and audit pages fit the screen's width", async ({ page, request }) => {
  const replayId = await completedReplay(request);
  const sessionId = await refundSessionId(request);
  await page.setViewportSize(PHONE);

  await page.goto(`/replays/${replayId}`);
  await expect(page.getByTestId("replay-step").first()).toBeVisible();
  expect.soft(await sidewaysScroll(page)).toBe(0);
  // The step columns scroll inside their box instead: the last one is still there.
  await expect(page.getByText("Result", { exact: true })).toBeAttached();

  await page.goto(`/sessions/${sessionId}?view=waterfall`);
  await expect(page.getByTestId("waterfall-view")).toBeVisible();
  expect.soft(await sidewaysScroll(page)).toBe(0);
  await expect.soft(page.getByRole("region", { name: "Latency waterfall columns" })).toHaveAttribute("tabindex", "0");

  await page.goto("/settings/audit");
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  expect.soft(await sidewaysScroll(page)).toBe(0);
  // Its columns scroll inside a frame a keyboard can reach.
  await expect.soft(page.getByRole("region", { name: "Audit log" })).toHaveAttribute("tabindex", "0");

  // A policy's versions: the hidden label of the actions column no longer sits past the table.
  const policy = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name: `Walkthrough versions ${Date.now()}`, policy: RECORDED },
  });
  expect(policy.status()).toBe(201);
  const { id: policyId } = (await policy.json()) as { id: string };
  await page.goto(`/policies/${policyId}/versions`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("versions");
  expect.soft(await sidewaysScroll(page)).toBe(0);

  // The policy editor of an agent with tools: its tool table scrolls in its own box (it made the page 556 px wide).
  const editor = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name: `Walkthrough phone editor ${Date.now()}`, agentName: "harbor-pine-support", policy: RECORDED },
  });
  expect(editor.status()).toBe(201);
  await page.goto(`/policies/${((await editor.json()) as { id: string }).id}`);
  await expect(page.getByRole("region", { name: "Tools and their rules" })).toBeVisible();
  expect.soft(await sidewaysScroll(page)).toBe(0);
  // No Ctrl K chord on a phone: the palette button says what it does.
  await expect(page.getByTestId("palette-chord")).toBeHidden();
  await expect(page.getByRole("button", { name: "Go to… (Ctrl K)" })).toContainText("Go to…");

  // Team: each cell keeps its distance from the next (the name ran into the email).
  await page.goto("/settings/team");
  const people = page.getByRole("table").filter({ hasText: "Signs in with" });
  await expect(people).toBeVisible();
  expect.soft(await sidewaysScroll(page)).toBe(0);
  const row = people.locator("tbody tr").first();
  // Where each cell's text starts and ends (a cell's box alone says nothing about the text's distance).
  const textEdges = (n: number) =>
    row
      .locator("td")
      .nth(n)
      .evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        const box = range.getBoundingClientRect();
        return { left: box.left, right: box.right };
      });
  const [name, email] = [await textEdges(0), await textEdges(1)];
  expect.soft(email.left - name.right).toBeGreaterThanOrEqual(12);
});

test("a page title wraps on a phone instead of being cut off", async ({ page, request }) => {
  await page.setViewportSize(PHONE);
  await page.goto(`/sessions/${await refundSessionId(request)}`);
  const h1 = page.getByRole("heading", { level: 1, name: "Refund for cracked pour-over set (order 4821)" });
  await expect(h1).toBeVisible();
  expect(await h1.evaluate((e) => e.scrollWidth - e.clientWidth)).toBe(0);
});

test("a summary that opens a section shows a marker that turns when it opens", async ({ page, request }) => {
  const replayId = await completedReplay(request);
  await page.goto(`/replays/${replayId}`);
  const summary = page.locator("summary", { hasText: "Policy document as run" });
  const marker = () => summary.evaluate((e) => getComputedStyle(e, "::before").content);
  expect(await marker()).toBe('"▸"');
  await summary.click();
  await expect(page.getByTestId("evidence-panel").locator("details[open]")).toHaveCount(1);
  expect(await summary.evaluate((e) => getComputedStyle(e, "::before").transform)).not.toBe("none");

  await page.goto(`/sessions/${await refundSessionId(request)}`);
  const systemPrompt = page.locator("summary", { hasText: /^System prompt/ });
  expect(await systemPrompt.evaluate((e) => getComputedStyle(e, "::before").content)).toBe('"▸"');
});

test("settings cards name their action in plain words; the jobs tables name their last column", async ({ page }) => {
  await page.goto("/settings");
  await expect.soft(page.getByRole("link", { name: /^API keys/ })).toContainText("Manage API keys →");
  await expect.soft(page.getByRole("link", { name: /^Audit log/ })).toContainText("Read the audit log →");
  await expect.soft(page.getByRole("main").getByText(/^Open /)).toHaveCount(0);

  await page.goto("/settings/jobs");
  for (const table of ["Running jobs", "Queued jobs", "Failed jobs"]) {
    await expect(
      page.getByRole("table", { name: table }).getByRole("columnheader", { name: "Actions", exact: true }),
    ).toHaveCount(1);
  }
});

test("an import of a one-step trace says 1 step, not 1 steps", async ({ page }) => {
  const stamp = Date.now().toString(16).padStart(16, "0").slice(-16);
  const otlp = oneSpanTrace(stamp, "walkthrough-svc");
  await page.goto("/import");
  await page
    .getByLabel("Session files")
    .setInputFiles([
      { name: "one-span.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(otlp)) },
    ]);
  const upload = page.locator('[data-testid="upload"][data-file="one-span.json"]');
  await expect(upload).toHaveAttribute("data-state", "done");
  await expect(upload.getByText("1 step", { exact: true })).toBeVisible();
  await expect(upload.getByText("1 steps", { exact: true })).toHaveCount(0);
});

test("an experiment's header puts the policy on its own line, with no separator left dangling", async ({
  page,
  request,
}) => {
  const id = await startRecordedExperiment(request, `Walkthrough ${Date.now()}`);
  await page.goto(`/experiments/${id}`);
  const counts = page.getByTestId("experiment-counts");
  await expect(counts).toBeVisible();
  const header = counts.locator("..");
  await expect(header.locator(":scope > span", { hasText: /^·$/ })).toHaveCount(0);
  const about = page.getByTestId("experiment-about");
  await expect(about).toContainText("over tau-bench-airline-agent");
  const [countsBox, aboutBox] = [await counts.boundingBox(), await about.boundingBox()];
  expect(aboutBox!.y).toBeGreaterThanOrEqual(countsBox!.y + countsBox!.height);

  // Once it finished, the latency card explains a zero latency in terms of time, not cost.
  await experimentCompleted(request, id);
  await page.reload();
  await expect(
    page.getByText(/took as long as their base runs \(Δ 0 ms\): recorded answers take the time they took then\./),
  ).toBeVisible();
});

test("a policy's versions page on a phone: the diff's sides are named by version, and axe finds nothing serious", async ({
  page,
  request,
}) => {
  const name = `Walkthrough diff ${Date.now()}`;
  const first = await request.post("/api/v1/policies", { headers: AUTH, data: { name, policy: RECORDED } });
  expect(first.status()).toBe(201);
  const { id } = (await first.json()) as { id: string };
  const second = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name, policy: { ...RECORDED, maxSteps: 50 } },
  });
  expect(second.status()).toBe(201);
  await page.setViewportSize(PHONE);
  await page.goto(`/policies/${id}/versions?a=1&b=2`);
  await expect(page.getByTestId("diff-title")).toHaveText("v1 → v2");
  await expect.soft(page.getByRole("textbox", { name: "Version 1 (read-only)" })).toBeAttached();
  await expect.soft(page.getByRole("textbox", { name: "Version 2 (read-only)" })).toBeAttached();
  // The text Monaco paints is left out: its diff highlights tint the theme's token colours (a finding of its own).
  const result = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .exclude(".monaco-diff-editor .view-lines")
    .analyze();
  const serious = result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious).toEqual([]);
});
