import { expect, test } from "./fixtures";

test("the first screen leads to a failed run, whose page says why it failed and where", async ({ page }) => {
  // Oldest imported first: the demo data, whatever other specs imported after it.
  await page.goto("/sessions?sort=createdAt");
  const lead = page.getByTestId("failed-runs-lead");
  // The demo data has seven failed runs (five τ-bench runs scored 0, two constructed); other specs may add more.
  await expect(lead).toContainText(/\d+ failed runs — start with/);
  const rows = page.getByTestId("session-row");
  // Each row has the badge twice: in its Status column and under its title (shown on phones only).
  const failedBadges = rows.locator('[data-testid="outcome-badge"][data-outcome="failed"]').filter({ visible: true });
  await expect(failedBadges.first()).toBeVisible();
  expect(await failedBadges.count()).toBeGreaterThanOrEqual(7);
  await expect(rows.filter({ hasText: "τ-bench airline task 12, trial 0" })).toContainText("task passed");

  const start = lead.getByTestId("failed-run-start");
  const title = (await start.textContent())!;
  await start.click();
  // At its step; the view is the one this account chose last (an earlier walkthrough may have left the timeline).
  await expect(page).toHaveURL(/\/sessions\/[^/?]+\?step=\d+(&view=[a-z]+)?$/);
  await expect(page.getByRole("heading", { name: title, exact: true })).toBeVisible();
  const outcome = page.getByTestId("session-outcome");
  await expect(outcome).toHaveAttribute("data-outcome", "failed");
  await expect(outcome).toContainText("Task failed:");
  await expect(outcome.getByRole("link", { name: /^Open step \d+$/ })).toBeVisible();

  // "failed" in the status filter finds the runs that failed their task, not only those that ended on an error.
  await page.goto("/sessions?status=failed&sort=createdAt");
  await expect(rows.filter({ hasText: "τ-bench airline task 13, trial 0" })).toContainText("task failed");
});
