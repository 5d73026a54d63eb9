import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext } from "@playwright/test";
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { AUTH } from "./replay-form";

/** The demo refund session under a new id and title: a run of its own to annotate. */
async function importRefund(request: APIRequestContext, title: string): Promise<string> {
  const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as Record<string, unknown>;
  const res = await request.post("/api/v1/sessions", {
    headers: AUTH,
    data: { ...doc, externalId: `annotated-${Date.now()}`, title },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
}

test("annotate a run: an empty note is refused, a label, score, step and comment are signed and listed, the label finds the run, and it can be deleted", async ({
  page,
  request,
}) => {
  const stamp = Date.now();
  const title = `Refund to annotate ${stamp}`;
  const label = `double refund ${stamp}`;
  const id = await importRefund(request, title);
  await page.goto(`/sessions/${id}`);
  const card = page.getByTestId("annotations");
  await expect(card.getByRole("heading", { name: "Annotations (0)" })).toBeVisible();
  await expect(card).toContainText("No annotation yet.");

  // Nothing to say: refused, with the reason under the label.
  await card.getByRole("button", { name: "Add annotation" }).click();
  await expect(card.getByText("Give a label, a score or a comment.")).toBeVisible();
  await expect(card.getByLabel("Label")).toHaveAttribute("aria-invalid", "true");

  await card.getByLabel("Label").fill(label);
  await card.getByLabel("Score").fill("0.5");
  await card.getByLabel("Step").fill("3");
  await card.getByLabel("Comment").fill("Refunded an order that was refunded already.");
  await card.getByRole("button", { name: "Add annotation" }).click();
  await expect(card.getByRole("heading", { name: "Annotations (1)" })).toBeVisible();
  const note = card.getByTestId("annotation");
  await expect(note).toHaveCount(1);
  await expect(note).toContainText(label);
  await expect(note).toContainText("score 0.5");
  await expect(note.getByRole("link", { name: "step 3" })).toHaveAttribute("href", `/sessions/${id}?step=3`);
  await expect(note).toContainText("Refunded an order that was refunded already.");
  // The form is empty again for the next note.
  await expect(card.getByLabel("Label")).toHaveValue("");
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await page.screenshot({ path: "test-results/annotations.png", fullPage: true });

  // The API sees the same note, signed.
  const listed = await request.get(`/api/v1/sessions/${id}/annotations`, { headers: AUTH });
  const [api] = ((await listed.json()) as { annotations: Record<string, unknown>[] }).annotations;
  expect([api!.label, api!.score, api!.seq, api!.comment]).toEqual([
    label,
    0.5,
    3,
    "Refunded an order that was refunded already.",
  ]);

  // The label lists the runs that carry it: this one.
  await note.getByRole("link", { name: label }).click();
  await expect(page).toHaveURL(
    new RegExp(`/sessions\\?label=${encodeURIComponent(label).replaceAll("%20", "(%20|\\+)")}$`),
  );
  await expect(page.getByTestId("session-row")).toHaveCount(1);
  await expect(page.getByTestId("session-row")).toContainText(title);
  await expect(page.getByLabel("Label")).toHaveValue(label);

  // Deleting asks first.
  await page.goto(`/sessions/${id}`);
  await note.getByRole("button", { name: "Delete" }).click();
  await card
    .getByRole("alertdialog", { name: "Delete this annotation?" })
    .getByRole("button", { name: "Delete" })
    .click();
  await expect(card.getByRole("heading", { name: "Annotations (0)" })).toBeVisible();
});
