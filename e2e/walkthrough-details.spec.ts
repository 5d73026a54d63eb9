import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH, REFUND_SESSION } from "./replay-form";
import { completedReplay, DESK, experimentCompleted, PHONE, startRecordedExperiment } from "./walkthrough-helpers";

/**
 * Small things a user of the dashboard met: a sentence said twice, a box a keyboard could not
 * scroll, a list that showed a phone only its titles, a skipped heading level, one fact in two wordings.
 */

/** Where the walk-through's screenshots go (look at each). */
const SHOTS = "test-results/screens/ux";

/** The ids of axe's findings under `rules` on the page as it is. */
async function axeFindings(page: Page, rules: string[]): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withRules(rules).analyze();
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a file that is not valid JSON says so once: in the message, not again as its only issue", async ({ page }) => {
  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto("/import");
    await page
      .getByLabel("Session files")
      .setInputFiles([{ name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"a": 1,, "b": 2}') }]);
    const bad = page.locator('[data-testid="upload"][data-file="bad.json"]');
    await expect(bad).toHaveAttribute("data-state", "failed");
    await expect(bad.getByRole("alert")).toHaveText(
      'Malformed JSON at line 1, column 9: expected a property name in double quotes, found ",". Nothing was imported from this file.',
    );
    await expect(bad.getByTestId("issue")).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/import-malformed-${size.width}.png`, fullPage: true });
  }
});

test("a long list of import issues is a named region a keyboard can reach and scroll", async ({ page }) => {
  const native = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as object;
  const events = Array.from({ length: 40 }, (_, seq) => ({ seq, kind: "teleport" }));
  const bad = { ...native, externalId: `ux-issues:${Date.now()}`, events };
  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto("/import");
    await page
      .getByLabel("Session files")
      .setInputFiles([{ name: "many.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad)) }]);
    const upload = page.locator('[data-testid="upload"][data-file="many.json"]');
    await expect(upload).toHaveAttribute("data-state", "failed");
    const list = upload.getByRole("region", { name: "Issues in many.json" });
    await expect(list.getByTestId("issue")).toHaveCount(40);
    // It does scroll: the check below would pass on a box that does not.
    expect(await list.evaluate((e) => e.scrollHeight > e.clientHeight)).toBe(true);
    await expect(list).toHaveAttribute("tabindex", "0");
    expect(await axeFindings(page, ["scrollable-region-focusable"])).toEqual([]);
    // A keyboard scrolls it.
    await list.focus();
    await page.keyboard.press("End");
    await expect.poll(() => list.evaluate((e) => e.scrollTop)).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}/import-issues-${size.width}.png`, fullPage: true });
  }
});

test("on a phone, each session in the list shows its status, steps and when it ran under its title", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await page.goto("/sessions?q=pour-over");
  const row = page.getByTestId("session-row").filter({ hasText: REFUND_SESSION });
  await page.screenshot({ path: `${SHOTS}/sessions-${PHONE.width}.png`, fullPage: true });
  const facts = row.getByTestId("session-facts");
  await expect(facts).toHaveText("completed 9 steps · ran 2025-03-11 14:02 UTC");
  // Other specs import copies of this run, so its row may be further down: scrolled to, the line fits the width.
  await facts.scrollIntoViewIfNeeded();
  await expect(facts).toBeInViewport({ ratio: 1 });

  // At a desk the columns say it: the line is not there twice.
  await page.setViewportSize(DESK);
  await expect(facts).toBeHidden();
  // The session, then the usual columns (all but tool calls, which read under the title).
  await expect(row.locator("td")).toHaveCount(10);
  await page.screenshot({ path: `${SHOTS}/sessions-${DESK.width}.png`, fullPage: true });
});

test("an experiment's page skips no heading level", async ({ page, request }) => {
  const experimentId = await startRecordedExperiment(request, `Headings ${Date.now()}`);
  await experimentCompleted(request, experimentId);

  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`/experiments/${experimentId}`);
    await expect(page.getByTestId("experiment-charts")).toBeVisible();
    expect(await axeFindings(page, ["heading-order"])).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/experiment-${size.width}.png`, fullPage: true });
  }
});

test("a report names the comparison's figures in the comparison page's words", async ({ page, request }) => {
  const replayId = await completedReplay(request, [
    { seq: 6, op: "replace_tool_result", value: "refund failed: card expired" },
  ]);
  const created = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId, title: `Figures ${Date.now()}`, sections: { finding: "The refund failed." } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const reportId = ((await created.json()) as { report: { id: string } }).report.id;

  await page.goto(`/replays/${replayId}/compare`);
  const words = await page.getByTestId("comparison-figures").locator("dt").allTextContents();
  expect(words).toContain("Tool calls added, removed or swapped");

  for (const size of [DESK, PHONE]) {
    await page.setViewportSize(size);
    await page.goto(`/reports/${reportId}`);
    await expect(page.getByTestId("report-figures")).toHaveText(
      "Tool calls added, removed or swapped 0 · Steps answered by a fixture 0 · Tool arguments changed no",
    );
    // The metrics table's box scrolls sideways on a phone: a keyboard reaches it, and a screen reader names it.
    await expect(page.getByRole("region", { name: "Comparison metrics" })).toHaveAttribute("tabindex", "0");
    expect(await axeFindings(page, ["scrollable-region-focusable"])).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/report-${size.width}.png`, fullPage: true });
    await page
      .getByRole("region", { name: "Evidence" })
      .screenshot({ path: `${SHOTS}/report-evidence-${size.width}.png` });
  }
});

test("the comparison's diff keeps its JSON tokens readable on the changed lines' tints, light and dark", async ({
  page,
  request,
}) => {
  const replayId = await completedReplay(request, [
    { seq: 6, op: "replace_tool_result", value: "refund failed: card expired" },
  ]);
  for (const theme of ["light", "dark"] as const) {
    await page.context().addCookies([{ name: "branchpoint-theme", value: theme, url: "http://127.0.0.1" }]);
    for (const size of [DESK, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(`/replays/${replayId}/compare`);
      // The changed pair: its sides differ in a string value, tinted on both sides.
      await page.getByRole("button", { name: "Jump to first divergence" }).click();
      const diff = page.getByTestId("monaco-diff").first();
      await expect(diff.locator(".char-delete").first()).toBeVisible();
      await expect(diff.locator(".char-insert").first()).toBeVisible();
      const result = await new AxeBuilder({ page }).include(".monaco-editor").withRules(["color-contrast"]).analyze();
      expect(
        result.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`)),
        `${theme} at ${size.width} px`,
      ).toEqual([]);
      // The step list around the selected pair: its numbers and previews on the selection's tint.
      const list = await new AxeBuilder({ page })
        .include('[data-testid="compare-list"]')
        .withRules(["color-contrast"])
        .analyze();
      expect(
        list.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`)),
        `step list, ${theme} at ${size.width} px`,
      ).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/compare-${theme}-${size.width}.png`, fullPage: true });
    }
  }
  await page.context().addCookies([{ name: "branchpoint-theme", value: "light", url: "http://127.0.0.1" }]);
});
