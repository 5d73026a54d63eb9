import type { Page } from "@playwright/test";
import { refundAgentScript, startScriptedModel, type ScriptedModel } from "../scripts/scripted-model";
import { expect, test } from "./fixtures";
import { AUTH, openReplayForm, REFUND_SESSION, refundSessionId } from "./replay-form";

// A scripted OpenAI-compatible model on 127.0.0.1 stands in for the provider: it refuses a refund for an
// order the lookup says was returned, and refunds otherwise.
let model: ScriptedModel;
test.beforeAll(async () => {
  model = await startScriptedModel({ script: refundAgentScript() });
});
test.afterAll(async () => {
  await model.close();
});

/** Edit the recorded lookup_order result: the order was returned, not merely delivered. */
async function editLookupToReturned(page: Page) {
  await page.getByRole("button", { name: "Add an edit" }).click();
  await page.getByLabel("Edit 1 operation").selectOption("replace_tool_result");
  await page.getByLabel("Edit 1 step").selectOption({ label: "1 · lookup_order" });
  const editor = page.getByTestId("monaco-edit-1.json").locator(".monaco-editor");
  await expect(editor).toContainText("CER-POUR-02");
  // Replace the whole recorded result: the order was returned.
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText('{"order_id": "4821", "status": "returned"}');
  // The editor closed the brace it saw opened: drop whatever follows the inserted text.
  await page.keyboard.press("Control+Shift+End");
  await page.keyboard.press("Delete");
  await expect(editor).toContainText('"returned"');
}

test("edit a tool result, replay fork-live, and read the fork and 'base failed → branch passed'", async ({
  page,
  request,
}) => {
  // Two replays run by the workers and seven pages: about 50 s on a quiet machine, more beside the other shard.
  test.setTimeout(150_000);
  // A demo session can fork onto the built-in demo model before any endpoint is configured: fork-live is offered,
  // and the form does not say edits need a live model.
  await openReplayForm(page);
  await page.getByRole("button", { name: "Add an edit" }).click();
  await expect(page.locator('select[name="policy"] option[value="preset:fork-live"]')).toHaveCount(1);
  await expect(page.getByTestId("fork-live-advice")).toHaveCount(0);

  // Configure the scripted model and allow its host.
  await page.goto("/settings/executors");
  await page.getByRole("textbox", { name: "Host", exact: true }).fill(model.host);
  await page.getByRole("button", { name: "Allow host" }).click();
  await expect(page.getByTestId("allowed-hosts")).toContainText(model.host);
  const modelForm = page.getByRole("form", { name: "Add a model endpoint" });
  await modelForm.locator('input[name="name"]').fill("scripted");
  await modelForm.locator('input[name="baseUrl"]').fill(model.baseUrl);
  await modelForm.locator('input[name="model"]').fill("gpt-4.1-2025-04-14");
  await modelForm.getByRole("button", { name: "Save model endpoint" }).click();
  await expect(page.getByRole("cell", { name: "scripted", exact: true })).toBeVisible();

  // A saved outcome check: the agent must not refund an order that was already returned.
  const created = await request.post("/api/v1/checks", {
    headers: AUTH,
    data: { name: "No refund for a returned order", definition: { kind: "tool_not_called", tool: "refund_payment" } },
  });
  expect(created.status()).toBe(201);

  // With an endpoint, the first edit switches the form to fork-live.
  await openReplayForm(page);
  await editLookupToReturned(page);
  await expect(page.locator('select[name="policy"]')).toHaveValue("preset:fork-live");
  await expect(page.getByTestId("fork-live-advice")).toHaveCount(0);
  await page.getByLabel("No refund for a returned order").check();
  await page.getByRole("button", { name: "Run replay" }).click();

  await expect(page).toHaveURL(/\/replays\/[^/]+$/);
  await expect(page.getByTestId("fork-point")).toHaveText(
    "Fork: the model ran live from branch step 3 (base step 3), the first model step whose input differed from the " +
      "record (the result of call_7Qm2vR1xKp8dLs0aZ3nYb4Tc changed). Steps before it are copied from the record.",
  );
  await page.getByRole("link", { name: "Compare with base" }).click();
  await expect(page).toHaveURL(/\/compare/);
  await expect(page.getByTestId("fork-point")).toContainText("the model ran live from branch step 3 (base step 3)");
  await expect(page.getByTestId("verdict-text")).toContainText("base failed → branch passed");
  await expect(page.getByTestId("verdict")).toContainText("No refund for a returned order");
  await expect(page.getByTestId("compare-row").filter({ hasText: "[live]" }).first()).toBeVisible();
  await page.screenshot({ path: "test-results/counterfactual-compare.png", fullPage: true });
  // The evidence panel fits its column: neither a desk nor a phone screen scrolls the page sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(1280);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await page.setViewportSize({ width: 1280, height: 720 });

  // Under the recorded policy the same edit cannot change the answer, and the form says why before it runs.
  await openReplayForm(page);
  await page.locator('select[name="policy"]').selectOption("preset:recommended");
  await editLookupToReturned(page);
  await expect(page.getByTestId("fork-live-advice")).toContainText(
    "your edits change what the model is sent but not what the agent does next",
  );
  await page.getByLabel("No refund for a returned order").check();
  await page.getByRole("button", { name: "Run replay" }).click();
  await expect(page).toHaveURL(/\/replays\/[^/]+$/);
  await expect(page.getByTestId("verdict-text")).toContainText("base failed → branch failed");
  await expect(page.getByTestId("replay-step").nth(3)).toContainText("input changed, output recorded");
  await expect(page.getByTestId("fork-point")).toHaveCount(0);
});

test("repeated trials: pass rate with its interval and the divergence strip", async ({ page }) => {
  await openReplayForm(page);
  await editLookupToReturned(page);
  await expect(page.locator('select[name="policy"]')).toHaveValue("preset:fork-live");
  await page.getByLabel("No refund for a returned order").check();
  await page.getByLabel("Trials").fill("10");
  await page.getByRole("button", { name: "Run replay" }).click();
  await expect(page).toHaveURL(/\/trials\/[^/]+$/);
  // The page names what it repeats: the session, the edit and the policy.
  const what = page.getByTestId("trials-what");
  await expect(what).toContainText(REFUND_SESSION);
  await expect(what).toContainText("replace tool result at step 1");
  await expect(what).toContainText("Recorded until an input changes, then live recorded-until-divergence");
  await expect(page.getByTestId("trials-progress")).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByTestId("pass-rate")).toHaveText("10 of 10 passed (100%)");
  await expect(page.getByTestId("pass-interval")).toContainText("95% interval (Wilson): 72.2% – 100%");
  await expect(page.getByTestId("pass-interval")).toContainText("The base run failed these checks.");
  await expect(page.getByTestId("strip-cell").nth(2)).toHaveAttribute("data-rate", "0");
  await expect(page.getByTestId("strip-cell").nth(3)).toHaveAttribute("data-rate", "1");
  await expect(page.getByTestId("first-divergence-distribution")).toContainText("10 of 10");
  await expect(page.getByTestId("trial-row")).toHaveCount(10);
  // Each row's link says which trial it compares; on a phone the trial's number keeps a gap to its status.
  await expect(page.getByRole("link", { name: "Compare trial 10 with the base run" })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  const gap = await page
    .getByTestId("trial-row")
    .nth(9)
    .evaluate((row) => {
      const [a, b] = [...row.querySelectorAll("td")].map((td) => td.firstChild!);
      const range = (n: Node) => {
        const r = document.createRange();
        r.selectNodeContents(n);
        return r.getBoundingClientRect();
      };
      return range(b!).left - range(a!).right;
    });
  expect(gap).toBeGreaterThanOrEqual(8);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.screenshot({ path: "test-results/counterfactual-trials.png", fullPage: true });
});

test("trials still running count only the finished ones; trials without checks say how to get a pass rate", async ({
  page,
  request,
}) => {
  // A model that answers only when told: both trials wait at their first live call.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = await startScriptedModel({ script: refundAgentScript(), gate: () => released });
  const name = `held-trials-${Date.now()}`;
  try {
    await request.post("/api/v1/executors/allowed-hosts", { headers: AUTH, data: { host: held.host } });
    const put = await request.post("/api/v1/executors/models", {
      headers: AUTH,
      data: { name, baseUrl: held.baseUrl, model: "gpt-4.1-2025-04-14" },
    });
    expect(put.status(), await put.text()).toBe(201);
    const started = await request.post("/api/v1/replays", {
      headers: AUTH,
      data: {
        sessionId: await refundSessionId(request),
        modelEndpoint: name,
        trials: 2,
        edits: [{ seq: 1, op: "replace_tool_result", value: { order_id: "4821", status: "returned" } }],
        policy: {
          model: "recorded-until-divergence",
          drift: "continue_to_terminal",
          tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
        },
      },
    });
    expect(started.status(), await started.text()).toBe(201);
    const { id } = ((await started.json()) as { trialSet: { id: string } }).trialSet;
    await expect.poll(() => held.requests.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await page.goto(`/trials/${id}`);
    await expect(page.getByTestId("trials-progress")).toHaveText(
      "Running trials: 0 of 2 finished. The figures below update as they do.",
    );
    // Steps a trial has yet to run are not departures: nothing is counted before a trial finishes.
    await expect(page.getByTestId("first-divergence-distribution").getByRole("listitem")).toHaveCount(0);
    await expect(page.getByTestId("first-divergence-none")).toHaveText(
      "No trial has finished yet: each is counted here when it does.",
    );
    await expect(page.locator('[data-testid="strip-cell"][data-rate="0"]')).toHaveCount(9);
    await expect(page.getByTestId("trial-row").nth(0)).toContainText("not finished");
    await expect(page.getByTestId("trial-row").nth(1)).toContainText("not finished");

    release();
    await expect(page.getByTestId("trials-progress")).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByRole("region", { name: "Pass rate" })).toContainText(
      "No trial has a verdict: none had an outcome check it could be judged by. To get a pass rate, choose outcome " +
        "checks in the replay form and run the trials again.",
    );
    await expect(page.getByTestId("first-divergence-distribution")).toContainText("2 of 2");
    await expect(page.getByTestId("first-divergence-none")).toHaveCount(0);
  } finally {
    release();
    await held.close();
  }
});
