import { expect, test } from "./fixtures";
import { DESK, PHONE } from "./walkthrough-helpers";

/**
 * Small things a user of the dashboard met: a sentence said twice, a box a keyboard could not
 * scroll, a list that showed a phone only its titles, a skipped heading level, one fact in two wordings.
 */

/** Where the walk-through's screenshots go (look at each). */
const SHOTS = "test-results/screens/ux";

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
