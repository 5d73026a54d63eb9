import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

/** The demo refund session under a new id and title: a run of its own to review. */
async function importRefund(request: APIRequestContext, title: string): Promise<string> {
  const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as Record<string, unknown>;
  const res = await request.post("/api/v1/sessions", {
    headers: AUTH,
    data: { ...doc, externalId: `reviewed-${title}`, title },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
}

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual(
    [],
  );
}

/** Both widths: the page is read on a laptop and on a phone; nothing runs off the side. */
async function axeAtBothWidths(page: Page, name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await axe(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width}px overflows`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `test-results/reviews-${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("a review queue: made on /reviews, two sessions added (from a session's page and the API), worked through with an annotation each, 2 of 2 done", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  const name = `Refund triage ${stamp}`;
  const first = await importRefund(request, `Review me first ${stamp}`);
  const second = await importRefund(request, `Review me second ${stamp}`);

  await page.goto("/reviews");
  await expect(page.getByRole("heading", { name: "Reviews", exact: true })).toBeVisible();
  const form = page.getByRole("form", { name: "New review queue" });
  await form.getByRole("textbox", { name: "Name", exact: true }).fill(name);
  await form.getByRole("textbox", { name: "Labels to choose from" }).fill("correct, wrong refund");
  await form.getByRole("checkbox", { name: "Ask reviewers for a score" }).check();
  await form.getByRole("button", { name: "Create queue" }).click();
  await expect(page).toHaveURL(/\/reviews\/[^/?]+$/);
  const queueId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByRole("heading", { name: "This queue is empty" })).toBeVisible();
  await expect(page.getByTestId("review-progress")).toContainText("0 of 0 done");
  await axeAtBothWidths(page, "empty-queue");

  // The first from its session's page, the second through the API (twice: the second time adds nothing).
  await page.goto(`/sessions/${first}`);
  await page.getByRole("button", { name: "Add to review queue" }).click();
  const dialog = page.getByRole("dialog", { name: "Add to a review queue" });
  await dialog.getByRole("combobox", { name: "Queue" }).selectOption({ label: name });
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(dialog.getByRole("status")).toContainText(`Added to ${name}.`);
  for (const added of [1, 0]) {
    const res = await request.post(`/api/v1/review-queues/${queueId}/items`, {
      headers: AUTH,
      data: { sessionIds: [second] },
    });
    expect(res.status()).toBe(200);
    expect(((await res.json()) as { added: number }).added).toBe(added);
  }

  await page.goto(`/reviews/${queueId}`);
  const progress = page.getByTestId("review-progress");
  await expect(progress).toContainText("0 of 2 done");
  const current = page.getByTestId("review-current");
  await expect(current).toContainText(`Review me first ${stamp}`);
  await expect(current.getByRole("link", { name: "Open the session" })).toHaveAttribute("href", `/sessions/${first}`);
  await expect(page.getByTestId("review-item-row")).toHaveCount(2);
  await axeAtBothWidths(page, "queue");

  // The queue offers its labels and asks for a score.
  await current.getByRole("radio", { name: "wrong refund" }).check();
  await current.getByRole("textbox", { name: "Comment" }).fill("Refunded twice.");
  await current.getByRole("textbox", { name: "Score (asked)" }).fill("0.2");
  await current.getByRole("button", { name: "Done, next" }).click();
  await expect(progress).toContainText("1 of 2 done");
  await expect(current).toContainText(`Review me second ${stamp}`);

  await current.getByRole("radio", { name: "correct", exact: true }).check();
  await current.getByRole("textbox", { name: "Score (asked)" }).fill("1");
  await current.getByRole("button", { name: "Done, next" }).click();
  await expect(progress).toContainText("2 of 2 done");
  await expect(page.getByRole("heading", { name: "Nothing left for you to review" })).toBeVisible();
  await expect(page.getByTestId("review-item-row").filter({ hasText: "done" })).toHaveCount(2);
  await axeAtBothWidths(page, "queue-done");

  // The review is an annotation on the session, signed.
  await page.goto(`/sessions/${first}`);
  const note = page.getByTestId("annotations").getByTestId("annotation");
  await expect(note).toContainText("wrong refund");
  await expect(note).toContainText("score 0.2");
  await expect(note).toContainText("Refunded twice.");

  // The list counts it: nothing pending, 2 of 2 done.
  await page.goto("/reviews");
  const row = page.getByTestId("review-queue-row").filter({ hasText: name });
  await expect(row).toContainText("2 of 2");
  await axeAtBothWidths(page, "list");
});
