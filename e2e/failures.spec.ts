import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** A session of `agent` whose refund call failed with a declined card (ids and amounts vary), or that passed. */
function session(agent: string, version: string, i: number, failed: boolean) {
  return {
    externalId: `${agent}:${version}:${i}`,
    title: `Refund ${i}`,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version, capabilities: [] },
    startedAt: new Date(Date.UTC(2025, 4, 1 + (version === "1" ? 0 : 3) + (i % 3), 10)).toISOString(),
    events: [
      {
        seq: 0,
        kind: "model_call",
        name: "m",
        input: { messages: [{ role: "user", content: "refund please" }] },
        output: { role: "assistant", content: null, toolCalls: [{ id: "c0", name: "refund_payment", args: { i } }] },
      },
      {
        seq: 1,
        kind: "tool_call",
        name: "refund_payment",
        parentSeq: 0,
        input: { callId: "c0", args: { i } },
        ...(failed
          ? {
              error: {
                type: "PaymentDeclined",
                message: `Card ending ${1000 + i} declined for $${i}.99 on order ord_${7000 + i}`,
              },
            }
          : { output: "ok" }),
      },
      ...(failed ? [] : [{ seq: 2, kind: "final_output", name: "final_output", output: "Refunded." }]),
    ],
  };
}

async function axe(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

// Under 20 s on an idle machine; the machines these run on are often shared, so the spec allows more.
test.setTimeout(180_000);

test("failed sessions form one cluster with its page, and a version that fails more is flagged", async ({
  page,
  request,
}) => {
  const agent = `e2e-failures-${Date.now()}`;
  const docs = [
    ...Array.from({ length: 20 }, (_, i) => session(agent, "1", i, i < 2)),
    ...Array.from({ length: 20 }, (_, i) => session(agent, "2", i, i < 14)),
  ];
  const imported = await request.post("/api/v1/sessions?format=native", {
    headers: { ...AUTH, "content-type": "application/x-ndjson" },
    data: docs.map((d) => JSON.stringify(d)).join("\n"),
  });
  expect(imported.status()).toBe(201);

  await page.goto("/sessions");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Failures" }).click();
  await page.getByRole("navigation", { name: "Agents" }).getByRole("link", { name: agent }).click();
  const row = page.getByTestId("cluster-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(
    "refund_payment: PaymentDeclined: Card ending <num> declined for <num> on order <id>",
  );
  await expect(row).toContainText("16");
  expect(await axe(page)).toEqual([]);

  await row.getByRole("link").click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("PaymentDeclined");
  const clusterUrl = page.url();
  const clusterId = clusterUrl.split("/").at(-1)!;
  await expect(page.getByTestId("chart-cluster-days").getByTestId("chart-summary")).toContainText("16 sessions over");
  await expect(page.getByTestId("cluster-session")).toHaveCount(16);
  await expect(page.getByTestId("cluster-session").first().getByTestId("outcome-badge")).toHaveText("task failed");
  // No blame search or report on the members yet: the card says what to do.
  await expect(page.getByTestId("member-work-empty")).toContainText("start a blame search");
  expect(await axe(page)).toEqual([]);
  // On a phone the members' table scrolls inside its card; the page itself does not widen.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))
    .toBe(0);
  expect(await axe(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 720 });

  await page.goto(`/failures/regressions?agent=${encodeURIComponent(agent)}`);
  const summary = page.getByTestId("chart-version-pass-rate").getByTestId("chart-summary");
  await expect(summary).toContainText("1: 18 of 20 passed (90%");
  await expect(summary).toContainText("Flagged as a regression: 2.");
  await expect(page.getByTestId("version-row").nth(1)).toContainText("regression");
  expect(await axe(page)).toEqual([]);

  // A report made from a replay of one member is listed on the cluster page, with its link.
  const members = await request.get(`/api/v1/clusters/${clusterId}/sessions?limit=20`, { headers: AUTH });
  const memberIds = ((await members.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
  expect(memberIds).toHaveLength(16);
  const replay = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId: memberIds[0],
      policy: {
        model: "recorded-only",
        drift: "continue_to_terminal",
        maxSteps: 100,
        tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
      },
    },
  });
  expect(replay.status(), await replay.text()).toBe(201);
  const replayId = ((await replay.json()) as { replay: { id: string } }).replay.id;
  await expect
    .poll(
      async () =>
        (
          (await (await request.get(`/api/v1/replays/${replayId}`, { headers: AUTH })).json()) as {
            replay: { status: string };
          }
        ).replay.status,
      { timeout: 20_000 },
    )
    .not.toMatch(/^(queued|running)$/);
  const report = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId, title: `Declined cards ${agent}` },
  });
  expect(report.status(), await report.text()).toBe(201);
  await page.goto(clusterUrl);
  await expect(page.getByTestId("member-report")).toHaveCount(1);
  await expect(page.getByTestId("member-report").getByRole("link")).toHaveText(`Declined cards ${agent}`);

  // Split two members off into a named cluster: 14 stay, the new one holds 2.
  const sessions = page.getByTestId("cluster-session");
  await sessions.nth(0).getByRole("checkbox").check();
  await sessions.nth(1).getByRole("checkbox").check();
  await page.getByLabel("Name of the new cluster").fill("Split pair");
  await page.getByRole("button", { name: "Split off 2 sessions…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("14 stay");
  await page.getByRole("button", { name: "Split off", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Split off into" })).toHaveText(
    "Split off into Split pair (2 sessions).",
  );
  await expect(sessions).toHaveCount(14);
  await expect(page.getByText(`14 failed sessions of ${agent}`)).toBeVisible();

  // Merge the 14 into the pair: the page goes to the merged cluster, 16 again, with the member's report.
  await page.getByLabel("Merge into").selectOption({ label: "Split pair (2 sessions)" });
  await page.getByRole("button", { name: "Merge…" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("(16 in all)");
  await page.getByRole("button", { name: "Merge", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Split pair");
  expect(page.url()).not.toBe(clusterUrl);
  await expect(sessions).toHaveCount(16);
  await expect(page.getByText(`16 failed sessions of ${agent}`)).toBeVisible();
  await expect(page.getByTestId("member-report")).toHaveCount(1);
  expect(await axe(page)).toEqual([]);
  expect(
    (await request.get(clusterUrl.replace(/.*\/failures\//, "/api/v1/clusters/"), { headers: AUTH })).status(),
  ).toBe(404);

  // The demo data's one failed billing session is a cluster of one: nothing to split off, and the built-in demo
  // model names it (offered as the playground offers it), showing the label and the exact prompt it was sent.
  await page.goto("/failures?agent=acme-billing-assistant");
  await page.getByTestId("cluster-row").filter({ hasText: "send_receipt: SmtpError" }).getByRole("link").click();
  await expect(page.getByTestId("split-unavailable")).toContainText("This cluster holds one session");
  await page.getByLabel("Model endpoint").selectOption("builtin:demo-model");
  await page.getByRole("button", { name: "Suggest a label", exact: true }).click();
  const suggestion = page.getByTestId("label-suggestion");
  await expect(suggestion.getByLabel("Suggested name")).toHaveValue("send_receipt fails with SmtpError");
  await expect(suggestion).toContainText("Answered by Demo model (scripted).");
  await suggestion.getByText("The prompt sent").click();
  await expect(suggestion.locator("pre").nth(1)).toHaveText(
    [
      "A group of 1 failed run of one agent.",
      'Failing check: ""',
      'Failing step: "tool:send_receipt"',
      'Error type: "SmtpError"',
      'Error message template (ids, numbers and quoted values masked): "<num> <num> recipient rejected: the domain juniperdental.exmaple does not exist"',
      "Error messages of 1 of its runs:",
      '1. "550 5.1.1 recipient rejected: the domain juniperdental.exmaple does not exist"',
    ].join("\n"),
  );
});
