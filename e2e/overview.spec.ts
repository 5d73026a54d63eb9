import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** A run of `agent` started at `start` that took `ms`, used 100 + 10 tokens, and failed its refund call when asked. */
function session(agent: string, version: string, i: number, start: string, ms: number, failed: boolean) {
  return {
    externalId: `${agent}:${i}`,
    title: `Refund ${i}`,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version, capabilities: [] },
    startedAt: start,
    endedAt: new Date(Date.parse(start) + ms).toISOString(),
    events: [
      {
        seq: 0,
        kind: "model_call",
        name: "m",
        startedAt: start,
        input: { messages: [{ role: "user", content: "refund please" }] },
        output: { role: "assistant", content: null, toolCalls: [{ id: "c0", name: "refund_payment", args: { i } }] },
        usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.25 },
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "refund_payment",
        parentSeq: 0,
        input: { callId: "c0", args: { i } },
        ...(failed ? { error: { type: "PaymentDeclined", message: "declined" } } : { output: "ok" }),
      },
      ...(failed ? [] : [{ seq: 2, kind: "final_output", name: "final_output", output: "Refunded." }]),
    ],
  };
}

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function switchTheme(page: Page, theme: "light" | "dark") {
  await page
    .getByRole("radiogroup", { name: "Colour theme" })
    .filter({ visible: true })
    .first()
    .getByRole("radio", { name: theme === "dark" ? "Dark" : "Light" })
    .click();
  await expect(page.locator("html")).toHaveClass(theme);
}

test.setTimeout(180_000);

test("an agent's overview: reached from a session, empty until its days are chosen, then charts with their numbers", async ({
  page,
  request,
}) => {
  const agent = `e2e-overview-${Date.now()}`;
  const docs = [
    session(agent, "1.0", 0, "2025-05-01T09:00:00.000Z", 1000, false),
    session(agent, "1.0", 1, "2025-05-01T10:00:00.000Z", 3000, true),
    session(agent, "2.0", 2, "2025-05-02T09:00:00.000Z", 2000, false),
    session(agent, "2.0", 3, "2025-05-03T09:00:00.000Z", 4000, true),
  ];
  const imported = await request.post("/api/v1/sessions?format=native", {
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    data: docs.map((d) => JSON.stringify(d)).join("\n"),
  });
  expect(imported.status()).toBe(201);
  const { sessions } = (await imported.json()) as { sessions: { id: string }[] };

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/sessions/${sessions[0]!.id}`);
  await page.getByRole("link", { name: agent, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${agent}: overview`);
  // The last 30 days hold none of these runs: the page says what to do.
  await expect(page.getByText(`No runs of ${agent} from`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Import sessions" })).toBeVisible();

  await page.getByLabel("First day (UTC)").fill("2025-05-01");
  await page.getByLabel("Last day (UTC)").fill("2025-05-03");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/from=2025-05-01&to=2025-05-03/);
  const rows = page.getByTestId("overview-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveText(/2025-05-011\.021\$0\.502\.00 s2\.90 s20020/);
  await expect(rows.nth(1)).toHaveText(/2025-05-022\.010\$0\.252\.00 s2\.00 s10010/);
  await expect(rows.nth(2)).toHaveText(/2025-05-032\.011\$0\.254\.00 s4\.00 s10010/);
  await expect(page.getByTestId("chart-overview-runs").getByTestId("chart-summary")).toHaveText(
    "4 runs over 3 days with runs; 2 failed (50%).",
  );
  await expect(
    page.getByTestId("chart-overview-latency").getByTestId("chart-drawing").locator("svg").first(),
  ).toBeVisible();
  expect(await axe(page)).toEqual([]);
  await switchTheme(page, "dark");
  expect(await axe(page)).toEqual([]);

  // One version only.
  await page.getByRole("combobox", { name: /^Version/ }).selectOption("2.0");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(rows).toHaveCount(2);

  // A phone: nothing wider than the screen but the table's own scrolling frame.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(rows).toHaveCount(2);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await axe(page)).toEqual([]);
  // The theme toggle sits in the wide navigation: switch there, then read the phone width in light too.
  await page.setViewportSize({ width: 1280, height: 800 });
  await switchTheme(page, "light");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(rows).toHaveCount(2);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await axe(page)).toEqual([]);

  // The failures page leads here too.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/failures?agent=${encodeURIComponent(agent)}`);
  await page.getByRole("link", { name: "Overview over time" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${agent}: overview`);
});
