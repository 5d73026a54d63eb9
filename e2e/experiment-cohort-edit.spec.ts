import AxeBuilder from "@axe-core/playwright";
import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

test("an experiment over a preset with an edit across the cohort: applied to the two members that look up order 4821, the third named", async ({
  page,
  request,
}) => {
  const run = Date.now();
  // Three runs of a fresh agent version: two look up order 4821, one order 4822.
  const raw = readFileSync("prisma/seed/native/refund-agent.json", "utf8");
  for (const [i, order] of ["4821", "4821", "4822"].entries()) {
    const doc = JSON.parse(raw.replaceAll("4821", order)) as {
      externalId: string;
      title: string;
      agentVersion: { version: string };
    };
    doc.externalId = `edit-${run}-${i}`;
    doc.title = `Edit copy ${i} (order ${order})`;
    doc.agentVersion.version = `edit-${run}`;
    const res = await request.post("/api/v1/sessions", { headers: AUTH, data: doc });
    expect(res.status(), await res.text()).toBe(201);
  }

  await page.goto("/experiments/new");
  const agentSelect = page.getByLabel(/Agent version/);
  await agentSelect.selectOption(
    (await agentSelect.locator("option", { hasText: `edit-${run}` }).getAttribute("value")) ?? "",
  );
  const policySelect = page.getByLabel("Policy version or preset");
  await expect(policySelect.locator("optgroup[label='Presets'] option")).toContainText([
    "Recommended RCA default (preset)",
    "Recorded only (preset)",
  ]);
  await policySelect.selectOption({ label: "Recorded only (preset)" });
  await expect(page.getByTestId("preset-help")).toHaveText(
    "Recorded model outputs and recorded tool results; a call with no recorded result stops the replay.",
  );
  const edit = page.getByRole("group", { name: "Edit across the cohort (optional)" });
  await edit.getByLabel("Tool").fill("lookup_order");
  await edit.getByLabel("Only calls with these arguments (JSON object, optional)").fill('{"order_id": "4821"}');
  await edit.getByLabel("Returns (JSON)").fill("{not json");
  await page.getByRole("textbox", { name: "Name", exact: true }).fill(`Lost parcels ${run}`);

  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  const start = page.getByRole("button", { name: "Start experiment over 3 sessions" });
  await start.click();
  await expect(edit.getByRole("alert")).toHaveText("Not JSON: give the result as JSON (a quoted string for text).");
  await edit.getByLabel("Returns (JSON)").fill('{"order_id": "4821", "status": "lost_in_transit"}');
  await start.click();

  await expect(page.getByRole("heading", { name: `Lost parcels ${run}` })).toBeVisible();
  await expect(page.getByTestId("experiment-about")).toContainText("Recorded only (preset) v");
  await expect(page.getByTestId("cohort-edit")).toHaveText(
    'Every call of lookup_order with order_id = "4821" returns the result below. Applied to 2 of 3 members; 1 member has no matching call and was replayed without it.',
  );
  await expect(page.getByRole("list", { name: "Members the edit did not apply to" })).toHaveText(
    'Edit copy 2 (order 4822): Its one call of lookup_order does not have order_id = "4821".',
  );
  await expect(page.getByTestId("experiment-result")).toHaveCount(3);
  await expect(page.getByTestId("experiment-summary")).toContainText("1 of 3 exact");
  const pageAxe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(pageAxe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  await page.screenshot({ path: "test-results/experiment-cohort-edit.png", fullPage: true });

  // The API answers the same: the edit, how many members it applied to, and which it did not.
  const experimentId = new URL(page.url()).pathname.split("/").at(-1)!;
  const api = (await (await request.get(`/api/v1/experiments/${experimentId}`, { headers: AUTH })).json()) as {
    experiment: { edit: { tool: string; applied: number; notApplied: { label: string }[] } };
  };
  expect(api.experiment.edit).toMatchObject({
    tool: "lookup_order",
    args: { order_id: "4821" },
    applied: 2,
    notApplied: [{ label: "Edit copy 2 (order 4822)" }],
  });
});
