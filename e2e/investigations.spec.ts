import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { lastToolResult, REFUND_SESSION, startScriptedModel, type ScriptedModel } from "../scripts/scripted-model";
import { expect, test } from "./fixtures";
import { refundSessionId, settledStatus } from "./replay-form";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const SHOTS = "test-results/screens";

// The agent as it should have behaved: it looks the order up, then declines to refund it.
/** Serious or critical accessibility violations on the page, as the suite's axe check counts them. */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

let model: ScriptedModel;
test.beforeAll(async () => {
  model = await startScriptedModel({
    script: (request) =>
      lastToolResult(request.messages, "lookup_order") === null
        ? { toolCalls: [{ name: "lookup_order", args: { order_id: "4821" } }] }
        : { content: REFUND_SESSION.refuse },
  });
});
test.afterAll(async () => {
  await model.close();
});

test("from a failing session, a blame search shows its cost, runs its probes and names the step that decided it", async ({
  page,
  request,
}) => {
  // Its probes are replays run by the job workers: on two busy cores (npm test runs the database tests meanwhile)
  // they take more than the default minute.
  test.setTimeout(150_000);
  const stamp = Date.now();
  const endpoint = `declines-${stamp}`;
  await page.goto("/settings/executors");
  await page.getByRole("textbox", { name: "Host", exact: true }).fill(model.host);
  await page.getByRole("button", { name: "Allow host" }).click();
  await expect(page.getByTestId("allowed-hosts")).toContainText(model.host);
  const modelForm = page.getByRole("form", { name: "Add a model endpoint" });
  await modelForm.locator('input[name="name"]').fill(endpoint);
  await modelForm.locator('input[name="baseUrl"]').fill(model.baseUrl);
  await modelForm.locator('input[name="model"]').fill("gpt-4.1-2025-04-14");
  await modelForm.getByRole("button", { name: "Save model endpoint" }).click();
  await expect(page.getByRole("cell", { name: endpoint, exact: true })).toBeVisible();
  const check = `Never refunds ${stamp}`;
  const created = await request.post("/api/v1/checks", {
    headers: AUTH,
    data: { name: check, definition: { kind: "tool_not_called", tool: "refund_payment" } },
  });
  expect(created.status()).toBe(201);

  await page.goto(`/sessions/${await refundSessionId(request)}`);
  await page.getByRole("link", { name: "Investigate" }).click();
  await expect(page.getByRole("heading", { name: "Investigate" })).toBeVisible();
  const form = page.getByRole("form", { name: "Start a blame search" });
  await expect(form).toContainText("4 model steps need at most 3 probes");
  await form.getByRole("checkbox", { name: new RegExp(check) }).check();
  await form.getByLabel("Trials per probe").fill("2");
  await form.getByLabel("Share of trials that must pass (%)").fill("100");
  await expect(page.getByTestId("blame-cost")).toHaveText(
    "At most 3 probes × 2 trials = 6 replays, with at most 108 live model calls (18 per replay).",
  );
  const endpointSelect = form.getByLabel("Model endpoint");
  if ((await endpointSelect.count()) > 0) await endpointSelect.selectOption(endpoint);
  await page.screenshot({ path: `${SHOTS}/investigate.png`, fullPage: true });
  await page.getByRole("button", { name: "Find the deciding step" }).click();

  await expect(page).toHaveURL(/\/investigations\/[^/]+$/);
  await expect(page.getByRole("heading", { name: "Which step decided the failure" })).toBeVisible();
  await expect(page.getByTestId("investigation-bound")).toContainText("at most 3 probes × 2 trials = 6 replays");
  // The page follows the probes as they finish, then the answer.
  await expect(page.getByTestId("investigation-result")).toContainText(
    "The failure is decided at model step 2 (base step 5, called refund_payment)",
    { timeout: 60_000 },
  );
  await expect(page.getByTestId("investigation-progress")).toHaveText("3 of at most 3 probes");
  await expect(page.getByTestId("probe-row")).toHaveText([
    /model step 0.*2 of 2.*fixes/,
    /model step 2.*2 of 2.*fixes/,
    /model step 3.*0 of 2.*fails/,
  ]);
  await page.screenshot({ path: `${SHOTS}/investigation-blame.png`, fullPage: true });
  // On a phone the probes table scrolls inside its card: the page itself is no wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await page.setViewportSize({ width: 1280, height: 720 });

  // The same probes as a chart, with its text alternative: pass rate by step, the threshold, the deciding step.
  const chart = page.getByTestId("chart-blame");
  await expect(chart.getByTestId("chart-summary")).toHaveText(
    "Model step 0 passed 2 of 2 (100%); Model step 2 passed 2 of 2 (100%); Model step 3 passed 0 of 2 (0%). " +
      "A probe is a fix at 100% or more; the failure is decided at model step 2 (marked).",
  );
  await expect(chart.getByTestId("chart-drawing").locator(".recharts-bar-rectangle")).toHaveCount(3);
  await expect(chart.getByTestId("chart-drawing")).toContainText("fix at 100%");
  await chart.getByText("Show the numbers").click();
  await expect(chart.getByTestId("chart-row")).toHaveText([
    /model step 0\s*2 of 2\s*100%\s*fixes/,
    /model step 2 \(deciding step\)\s*2 of 2\s*100%\s*fixes/,
    /model step 3\s*0 of 2\s*0%\s*fails/,
  ]);
  await page.mouse.move(0, 0);
  await chart.screenshot({ path: `${SHOTS}/chart-blame.png` });
  expect(await seriousViolations(page)).toEqual([]);
  const investigationUrl = page.url();
  await page.context().addCookies([{ name: "branchpoint-theme", value: "dark", url: "http://127.0.0.1" }]);
  await page.reload();
  await expect(chart.getByTestId("chart-drawing").locator(".recharts-bar-rectangle")).toHaveCount(3);
  await page.mouse.move(0, 0);
  await chart.screenshot({ path: `${SHOTS}/chart-blame-dark.png` });
  expect(await seriousViolations(page)).toEqual([]);
  await page.context().addCookies([{ name: "branchpoint-theme", value: "light", url: "http://127.0.0.1" }]);
  await page.goto(investigationUrl);

  // The branch it names is forked live at that step.
  await page.getByRole("link", { name: "Open the branch forked at that step" }).click();
  // The comparison opens at its first changed pair: base and branch step 5, where the branch no longer refunds.
  await expect(page).toHaveURL(/\/replays\/[^/]+\/compare\?pair=p5-5$/);
  await expect(page.getByTestId("fork-point")).toContainText("where the policy asked it to start");
  await expect(page.getByTestId("fork-point")).toContainText("model step 2");

  // Scripts get the same answer from the API.
  await page.goBack();
  const id = new URL(page.url()).pathname.split("/").at(-1)!;
  const api = await request.get(`/api/v1/investigations/${id}`, { headers: AUTH });
  expect(api.status()).toBe(200);
  const body = (await api.json()) as { investigation: { status: string; result: unknown } };
  expect(body.investigation.status).toBe("completed");
  expect(body.investigation.result).toMatchObject({ kind: "decided", modelStep: 2, baseSeq: 5 });
  const missing = await request.get("/api/v1/investigations/no-such-id", { headers: AUTH });
  expect(missing.status()).toBe(404);
  const bad = await request.post("/api/v1/investigations", { headers: AUTH, data: { kind: "blame" } });
  expect(bad.status()).toBe(400);

  // Into a report as evidence: a draft of the branch it named, the search added from its page, then published and
  // opened through its share link.
  const branchId = (body.investigation.result as { replayId: string }).replayId;
  const draft = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: { replayId: branchId, title: `Blame ${stamp}`, sections: { finding: "Model step 2 decides the refund." } },
  });
  expect(draft.status()).toBe(201);
  const reportId = ((await draft.json()) as { report: { id: string } }).report.id;
  const badEvidence = await request.post(`/api/v1/reports/${reportId}/evidence`, {
    headers: AUTH,
    data: { investigationId: "no-such-id" },
  });
  expect(badEvidence.status()).toBe(404);
  const both = await request.post(`/api/v1/reports/${reportId}/evidence`, {
    headers: AUTH,
    data: { investigationId: id, coverage: { replayId: branchId } },
  });
  expect(both.status()).toBe(400);
  // Evidence about another session (a branch of a demo τ-bench session) is refused, naming both sessions.
  const tau = await request.get("/api/v1/sessions?agent=tau-bench-airline-agent&limit=1", { headers: AUTH });
  const [otherSession] = ((await tau.json()) as { sessions: { id: string }[] }).sessions;
  const otherStarted = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId: otherSession!.id,
      policy: {
        model: "recorded-only",
        drift: "continue_to_terminal",
        tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
      },
    },
  });
  expect(otherStarted.status()).toBe(201);
  const otherReplayId = ((await otherStarted.json()) as { replay: { id: string } }).replay.id;
  expect(await settledStatus(request, otherReplayId)).toBe("completed");
  const elsewhere = await request.post(`/api/v1/reports/${reportId}/evidence`, {
    headers: AUTH,
    data: { coverage: { replayId: otherReplayId } },
  });
  expect(elsewhere.status()).toBe(400);
  const refused = (await elsewhere.json()) as { error: { code: string; message: string } };
  expect(refused.error.code).toBe("invalid_input");
  expect(refused.error.message).toMatch(
    new RegExp(
      `^Replay "${otherReplayId}" is about session ".+" \\(${otherSession!.id}\\), and report "${reportId}" is about session ".+" \\(${await refundSessionId(request)}\\): only evidence about the report's own session can go into it\\.$`,
    ),
  );
  await page.goto(`/investigations/${id}`);
  const add = page.getByRole("form", { name: "Add to report" });
  await add.getByLabel("Add this blame search to the draft").selectOption({ label: `Blame ${stamp}` });
  await add.getByRole("button", { name: "Add to report" }).click();
  await expect(add.getByRole("status")).toHaveText(`Added to Blame ${stamp}.`);
  await add.getByRole("link", { name: `Blame ${stamp}` }).click();
  await expect(page).toHaveURL(new RegExp(`/reports/${reportId}$`));
  const item = page.getByTestId("evidence-item");
  await expect(item).toHaveAttribute("data-kind", "blame");
  await expect(item).toContainText("Blame search: the failure is decided at model step 2 (base step 5)");
  await expect(item.getByTestId("evidence-probe")).toHaveCount(3);
  const fromApi = (await (await request.get(`/api/v1/reports/${reportId}`, { headers: AUTH })).json()) as {
    report: { addedEvidence: { kind: string; addedBy: string | null; policyHash: string }[] };
  };
  expect(fromApi.report.addedEvidence).toHaveLength(1);
  const [added] = fromApi.report.addedEvidence;
  expect(added!.kind).toBe("blame");
  expect(added!.addedBy).toBeTruthy();
  await expect(item).toContainText(`Added by ${added!.addedBy}`);
  await expect(item.getByTestId("evidence-policy-hash")).toHaveText(added!.policyHash);
  const publish = await request.post(`/api/v1/reports/${reportId}/publish`, { headers: AUTH });
  expect(publish.status()).toBe(200);
  const share = await request.post(`/api/v1/reports/${reportId}/share`, { headers: AUTH, data: {} });
  expect(share.status()).toBe(201);
  const { url } = ((await share.json()) as { share: { url: string } }).share;
  const reader = await page
    .context()
    .browser()!
    .newContext({ storageState: { cookies: [], origins: [] } });
  const shared = await reader.newPage();
  await shared.goto(url);
  const sharedItem = shared.getByTestId("evidence-item");
  await expect(sharedItem).toContainText("Blame search: the failure is decided at model step 2 (base step 5)");
  await expect(sharedItem).toContainText(`Added by ${added!.addedBy}`);
  await expect(sharedItem.getByTestId("evidence-policy-hash")).toHaveText(added!.policyHash);
  await expect(sharedItem.getByTestId("evidence-probe")).toHaveText([
    /model step 0 · base step 0\s*2 of 2\s*fixes/,
    /model step 2 · base step 5 \(deciding step\)\s*2 of 2\s*fixes/,
    /model step 3 · base step 7\s*0 of 2\s*fails/,
  ]);
  await shared.getByTestId("added-evidence").screenshot({ path: `${SHOTS}/report-evidence-shared.png` });
  await reader.close();
  // Published: nothing more goes in.
  const late = await request.post(`/api/v1/reports/${reportId}/evidence`, {
    headers: AUTH,
    data: { coverage: { replayId: branchId } },
  });
  expect(late.status()).toBe(409);

  const unknown = await page.goto("/investigations/no-such-id");
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Investigation not found" })).toBeVisible();
});

test("a determinism probe shows, per step, how often the model answered differently from the record", async ({
  page,
  request,
}) => {
  const endpoint = `probe-${Date.now()}`;
  await page.goto("/settings/executors");
  // This test's own model server (after a failure Playwright starts a new worker, and a new server on another port).
  const hosts = page.getByTestId("allowed-hosts");
  const listed = (await hosts.count()) > 0 ? ((await hosts.textContent()) ?? "") : "";
  if (!listed.includes(model.host)) {
    await page.getByRole("textbox", { name: "Host", exact: true }).fill(model.host);
    await page.getByRole("button", { name: "Allow host" }).click();
    await expect(page.getByTestId("allowed-hosts")).toContainText(model.host);
  }
  const modelForm = page.getByRole("form", { name: "Add a model endpoint" });
  await modelForm.locator('input[name="name"]').fill(endpoint);
  await modelForm.locator('input[name="baseUrl"]').fill(model.baseUrl);
  await modelForm.locator('input[name="model"]').fill("gpt-4.1-2025-04-14");
  await modelForm.getByRole("button", { name: "Save model endpoint" }).click();
  await expect(page.getByRole("cell", { name: endpoint, exact: true })).toBeVisible();

  const sessionId = await refundSessionId(request);
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      modelEndpoint: endpoint,
      policy: {
        model: "determinism-probe",
        probeRuns: 3,
        drift: "continue_to_terminal",
        tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
      },
    },
  });
  expect(started.status()).toBe(201);
  const { replay } = (await started.json()) as { replay: { id: string } };
  await expect
    .poll(async () => {
      const r = await request.get(`/api/v1/replays/${replay.id}`, { headers: AUTH });
      const body = (await r.json()) as { replay: { status: string; error: { message: string } | null } };
      return `${body.replay.status}${body.replay.error ? `: ${body.replay.error.message}` : ""}`;
    })
    .toBe("completed");
  await page.goto(`/replays/${replay.id}`);
  const probe = page.getByRole("region", { name: "Determinism probe" });
  await expect(probe).toContainText("Each recorded model input was sent 3 times.");
  // Four model steps probed; this model declines where the recorded agent issued the refund (base step 5).
  await expect(probe.getByTestId("probe-report")).toHaveCount(4);
  await expect(probe.locator('[data-testid="probe-cell"][data-seq="5"]')).toHaveAttribute("data-rate", "1");
  await expect(probe.locator('[data-testid="probe-cell"][data-seq="1"]')).toHaveAttribute("data-rate", "0");
  // The last column says what its share measures: the runs that gave another answer than the most common one.
  await expect(probe.getByRole("columnheader")).toHaveText([
    "Model step",
    "Branch step",
    "Distinct answers",
    "Same as the record",
    "Unlike the most common answer",
  ]);
  await page.screenshot({ path: `${SHOTS}/determinism-probe.png`, fullPage: true });
});
