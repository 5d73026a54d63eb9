import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

// The playground: a demo model step opened from the session page, its last user message edited, sent to the
// built-in demo model (configured on demo data, no endpoint needed), the new answer beside the recorded one with
// the folded diff; bad JSON named by its line and column with the edit kept; axe at both widths.

const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const BILLING = "Duplicate-charge credit on invoice INV-7731";
const ASKED = "Hi, we were charged twice for invoice INV-7731 this month. Can you credit the duplicate?";
const EDITED = "Please email me the receipt for invoice INV-7731.";

async function billingSession(request: APIRequestContext): Promise<string> {
  const res = await request.get("/api/v1/sessions?q=INV-7731", { headers: AUTH });
  expect(res.status()).toBe(200);
  const { sessions } = (await res.json()) as { sessions: { id: string; title: string | null }[] };
  const found = sessions.filter((s) => s.title === BILLING);
  expect(found.length).toBeGreaterThan(0);
  return found[0]!.id;
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/**
 * Replaces the whole text of a Monaco editor (it closes brackets it sees opened: what follows is dropped). The
 * text goes in on one line: Monaco indents every pasted line again.
 */
async function replaceEditorText(page: Page, testId: string, text: string) {
  const editor = page.getByTestId(testId).locator(".monaco-editor");
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
  await page.keyboard.press("Control+Shift+End");
  await page.keyboard.press("Delete");
}

test("open a demo model step in the playground, edit the user message, run it on the demo model, read the diff", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESK);
  const sessionId = await billingSession(request);
  const step = await request.get(`/api/v1/sessions/${sessionId}/events/2`, { headers: AUTH });
  const recorded = ((await step.json()) as { event: { input: { messages: { role: string; content: unknown }[] } } })
    .event.input.messages;

  // From the session's step detail.
  await page.goto(`/sessions/${sessionId}?view=timeline&step=2`);
  await page.getByRole("link", { name: "Open in playground" }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/playground/2$`));
  await expect(page.getByRole("heading", { name: "Playground: step #2" })).toBeVisible();
  await expect(page.getByTestId("monaco-playground-messages.json").locator(".monaco-editor")).toContainText(ASKED);
  await expect(page.getByLabel("Model endpoint")).toHaveValue("builtin:demo-model");
  await expect(page.getByText('"issue_credit"').first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  expect(await sidewaysScroll(page)).toBe(0);

  // Bad JSON: named by line and column, and the edit stays as typed.
  await replaceEditorText(page, "monaco-playground-messages.json", '[{"role": "user",}]');
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByTestId("playground-error")).toContainText("The edited JSON is not valid");
  await expect(page.getByTestId("playground-error")).toContainText(
    'Messages: not valid JSON at line 1, column 18: expected a property name in double quotes, found "}".',
  );
  await expect(page.getByTestId("monaco-playground-messages.json").locator(".monaco-editor")).toContainText(
    '"role": "user",}',
  );
  await expect(page.getByTestId("playground-run")).toHaveCount(0);

  // The last user message edited: the demo agent now sends the receipt instead of crediting the charge.
  const edited = recorded.map((m) => (m.role === "user" ? { ...m, content: EDITED } : m));
  await replaceEditorText(page, "monaco-playground-messages.json", JSON.stringify(edited));
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const run = page.getByTestId("playground-run").first();
  await expect(run).toContainText("Run 1");
  await expect(run).toContainText("edited request");
  await expect(run).toContainText("answer differs");
  await expect(page.getByTestId("playground-error")).toHaveCount(0);
  await expect(run.getByText('"send_receipt"').first()).toBeVisible();
  await expect(run.getByTestId("figures")).toContainText("tokens in / out100 / 20");
  const diff = run.getByTestId("playground-diff");
  await expect(diff.locator(".monaco-diff-editor")).toBeVisible();
  await expect(diff).toContainText("send_receipt");
  await page.screenshot({ path: "test-results/playground-desk.png", fullPage: true });

  // Back to the recorded request and run again: a second run listed above the first, which stays.
  await page.getByRole("button", { name: "Back to the recorded request" }).click();
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect(page.getByTestId("playground-run")).toHaveCount(2);
  await expect(page.getByTestId("playground-run").first()).toContainText("Run 2");
  await expect(page.getByTestId("playground-run").first()).toContainText("as recorded");
  await expect(page.getByTestId("playground-run").first().getByText('"issue_credit"').first()).toBeVisible();

  // The runs stay with the tab across a reload.
  await page.reload();
  await expect(page.getByTestId("playground-run")).toHaveCount(2);
  expect(await seriousViolations(page)).toEqual([]);

  await page.setViewportSize(PHONE);
  await expect(page.getByRole("heading", { name: "Playground: step #2" })).toBeVisible();
  expect(await sidewaysScroll(page)).toBe(0);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: "test-results/playground-phone.png", fullPage: true });
});

test("a tool step cannot be opened in the playground, and says so", async ({ page, request }) => {
  const sessionId = await billingSession(request);
  await page.goto(`/sessions/${sessionId}/playground/1`);
  await expect(page.getByText("Only a model call can be opened in the playground")).toBeVisible();
  await expect(page.getByText("Step 1 is a tool call, not a model call")).toBeVisible();
});
