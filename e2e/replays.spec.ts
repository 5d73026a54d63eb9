import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AUTH, openReplayForm, REFUND_SESSION, refundSessionId } from "./replay-form";

const RECORDED = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
const PAUSE = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
};

test("replay a session with an edit, supply a fixture when it pauses, and compare with the base run", async ({
  page,
}) => {
  await openReplayForm(page);

  // Counterfactual: look up another order, so the recorded history has no answer.
  await page.getByRole("button", { name: "Add an edit" }).click();
  await page.getByLabel("Edit 1 operation").selectOption("replace_tool_args");
  await page.getByLabel("Edit 1 step").selectOption({ label: "1 · lookup_order" });
  const editor = page.getByTestId("monaco-edit-1.json").locator(".monaco-editor");
  await expect(editor).toContainText("4821");
  await editor.getByText("4821").dblclick();
  await page.keyboard.insertText("4822");
  await expect(editor).toContainText("4822");
  // A recorded model: with a model endpoint configured (the counterfactual spec adds one), an edit proposes fork-live.
  const policy = page.getByLabel(/The rules the branch runs under/);
  await policy.selectOption("preset:recommended");
  await expect(policy).toHaveValue("preset:recommended");
  // An OpenAI Agents session: the preset is adapted to it (no history default there), so it carries no caveat,
  // and it says what it does in words, with the document's raw values beside them.
  await expect(page.getByTestId("policy-warnings")).toHaveCount(0);
  const summary = page.getByTestId("policy-choice-summary");
  await expect(summary).toContainText("Recorded outputs recorded-only");
  await expect(summary).toContainText("Run to the end continue_to_terminal");
  await expect(summary).toContainText("Run the real tool passthrough · Ask before each call per_call");
  await page.getByRole("button", { name: "Run replay" }).click();

  // The branch pauses at the changed call and says why history missed.
  await expect(page).toHaveURL(/\/replays\/[^/]+$/);
  await expect(page.getByRole("heading", { name: /Waiting for a fixture: lookup_order at step 1/ })).toBeVisible();
  // Below the heading, only why: its words are not said twice.
  await expect(page.getByTestId("pending-why")).toContainText('No recorded "lookup_order" call has these arguments');
  await expect(page.getByTestId("pending-why")).not.toContainText("Waiting for a fixture");
  await expect(page.getByText(/differs at .*order_id/).first()).toBeVisible();
  const fixtureEditor = page.getByTestId("monaco-fixture-output.json").locator(".monaco-editor");
  await expect(fixtureEditor).toContainText("CER-POUR-02");

  // A fixture without a note is refused beside the field; with one, the branch resumes and finishes.
  await page.getByRole("button", { name: "Store fixture and resume" }).click();
  await expect(page.getByText("Say where the value comes from")).toBeVisible();
  await page.getByLabel(/Note/).fill("Warehouse ticket WH-77: order 4822 is the same set");
  await page.getByRole("button", { name: "Store fixture and resume" }).click();
  await expect(page.getByRole("heading", { name: /Waiting for a fixture/ })).toHaveCount(0);
  await expect(page.locator("header, div").getByText("completed", { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId("replay-step").nth(1)).toContainText("fixture");

  // The comparison names the first divergence at the fixture's step and shows the fixture as evidence.
  await page.getByRole("link", { name: "Compare with base" }).click();
  await expect(page).toHaveURL(/\/compare/);
  await expect(page.getByTestId("first-divergence")).toContainText("base step 1");
  await expect(page.getByTestId("compare-row").first()).toBeVisible();
  await page.getByRole("button", { name: "Jump to first divergence" }).click();
  await expect(page).toHaveURL(/pair=p1-1/);
  await expect(page.getByTestId("pair-detail")).toContainText("first divergence");
  await expect(page.getByTestId("pair-detail")).toContainText("lookup_order");
  const evidence = page.getByTestId("evidence-panel");
  await expect(evidence.getByTestId("evidence-fixtures")).toContainText(
    "Warehouse ticket WH-77: order 4822 is the same set",
  );
  await expect(evidence).toContainText("controlled");
  // Counted over model and tool steps only, and the label says so.
  await expect(evidence.getByText("Model and tool steps by source", { exact: true })).toBeVisible();
  // The edit in words, as reports and investigations say it.
  await expect(evidence.getByText("replace tool args at step 1", { exact: true })).toBeVisible();

  // The URL holds the view: a reload keeps the selected pair and the filter.
  await page.getByRole("combobox", { name: "Show", exact: true }).selectOption("changes");
  await expect(page).toHaveURL(/filter=changes/);
  await page.reload();
  await expect(page.getByRole("combobox", { name: "Show", exact: true })).toHaveValue("changes");
  await expect(page.locator('[data-testid="compare-row"][aria-selected="true"]')).toHaveAttribute(
    "data-pair-id",
    "p1-1",
  );

  await page.goto("/replays");
  await expect(page.getByTestId("replay-row").first()).toContainText(REFUND_SESSION);
});

type ApiReplay = {
  id: string;
  status: string;
  comparability: string;
  steps: unknown[];
  evidence: { policyHash: string };
  pending: { tool: string; step: number } | null;
};

/** Polls the replay until a worker has run it (the POST answers at once with it queued). */
async function settled(request: APIRequestContext, id: string): Promise<ApiReplay> {
  let replay: ApiReplay | null = null;
  await expect
    .poll(
      async () => {
        replay = (
          (await (await request.get(`/api/v1/replays/${id}`, { headers: AUTH })).json()) as { replay: ApiReplay }
        ).replay;
        return replay.status;
      },
      { timeout: 20_000 },
    )
    .not.toMatch(/^(queued|running)$/);
  return replay!;
}

test("API: start, pause, fixture, comparison, and clear errors", async ({ request, page }) => {
  const sessionId = await refundSessionId(request);

  expect((await request.post("/api/v1/replays", { data: { sessionId, policy: RECORDED } })).status()).toBe(401);

  const exact = await request.post("/api/v1/replays", { headers: AUTH, data: { sessionId, policy: RECORDED } });
  expect(exact.status()).toBe(201);
  const queued = ((await exact.json()) as { replay: ApiReplay }).replay;
  expect(queued).toMatchObject({ status: "queued", steps: [] });
  const replay = await settled(request, queued.id);
  expect(replay).toMatchObject({ status: "completed", comparability: "exact" });
  expect(replay.evidence.policyHash).toMatch(/^[0-9a-f]{64}$/);
  expect(replay.steps.length).toBeGreaterThan(5);

  const notPaused = await request.post(`/api/v1/replays/${replay.id}/fixtures`, {
    headers: AUTH,
    data: { output: 1, note: "n" },
  });
  expect(notPaused.status()).toBe(409);
  expect(((await notPaused.json()) as { error: { code: string } }).error.code).toBe("wrong_state");

  const badEdit = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: { sessionId, policy: RECORDED, edits: [{ seq: 0, op: "replace_tool_result", value: 1 }] },
  });
  expect(badEdit.status()).toBe(400);
  const badBody = (await badEdit.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
  expect(badBody.error.code).toBe("invalid_edits");
  expect(badBody.error.issues[0]!.path).toBe("edits[0].op");

  const paused = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: { sessionId, policy: PAUSE, edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "4822" } }] },
  });
  const pausedReplay = await settled(request, ((await paused.json()) as { replay: ApiReplay }).replay.id);
  expect(pausedReplay).toMatchObject({ status: "paused", pending: { tool: "lookup_order", step: 1 } });

  const malformed = await request.post(`/api/v1/replays/${pausedReplay.id}/fixtures`, {
    headers: { ...AUTH, "content-type": "application/json" },
    data: Buffer.from("{not json"),
  });
  expect(malformed.status()).toBe(400);
  expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("malformed_json");

  const resumed = await request.post(`/api/v1/replays/${pausedReplay.id}/fixtures`, {
    headers: AUTH,
    data: { output: { order_id: "4822", status: "delivered" }, note: "from the API test" },
  });
  expect(resumed.status()).toBe(200);
  expect((await settled(request, pausedReplay.id)).status).toBe("completed");

  const comparison = await request.get(`/api/v1/replays/${pausedReplay.id}/comparison`, { headers: AUTH });
  expect(comparison.status()).toBe(200);
  const body = (await comparison.json()) as {
    comparison: {
      firstDivergence: { baseSeq: number };
      evidence: { fixturesUsed: { note: string }[]; policyHash: string };
      pairs: { type: string }[];
    };
  };
  expect(body.comparison.firstDivergence.baseSeq).toBe(1);
  expect(body.comparison.evidence.fixturesUsed[0]!.note).toBe("from the API test");

  // The fixture left out most of the recorded output: its pair names many changed paths, which wrap inside
  // the panel rather than run past its edge, at desk and phone widths.
  await page.goto(`/replays/${pausedReplay.id}/compare?pair=p1-1`);
  const paths = page.getByTestId("changed-paths");
  await expect(paths.locator("code")).not.toHaveCount(0);
  expect(await paths.locator("code").count()).toBeGreaterThan(4);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    expect(await paths.evaluate((e) => e.scrollWidth - e.clientWidth), `at ${width} px`).toBe(0);
  }

  expect((await request.get("/api/v1/replays/nope/comparison", { headers: AUTH })).status()).toBe(404);
});

test("executor settings: an allow-list entry and a tool endpoint, with clear errors; keys stay on the server", async ({
  page,
}) => {
  await page.goto("/settings/executors");
  await expect(page.getByRole("heading", { name: "Live executors" })).toBeVisible();
  await page.getByRole("textbox", { name: "Host", exact: true }).fill("http://exa mple");
  await page.getByRole("button", { name: "Allow host" }).click();
  await expect(page.getByText(/"http:\/\/exa mple" is not a host/)).toBeVisible();
  await page.getByRole("textbox", { name: "Host", exact: true }).fill("127.0.0.1:9");
  await page.getByRole("button", { name: "Allow host" }).click();
  await expect(page.getByTestId("allowed-hosts")).toContainText("127.0.0.1:9");

  const toolForm = page.getByRole("form", { name: "Add a tool endpoint" });
  await toolForm.locator('input[name="toolName"]').fill("lookup_order");
  await toolForm.locator('input[name="url"]').fill("ftp://nope");
  await toolForm.getByRole("button", { name: "Save tool endpoint" }).click();
  await expect(toolForm).toContainText("must be an http:// or https:// URL");
  await toolForm.locator('input[name="url"]').fill("http://127.0.0.1:9/tools");
  await toolForm.getByRole("button", { name: "Save tool endpoint" }).click();
  await expect(page.getByRole("cell", { name: "lookup_order", exact: true })).toBeVisible();

  const modelForm = page.getByRole("form", { name: "Add a model endpoint" });
  await modelForm.locator('input[name="name"]').fill("local");
  await modelForm.locator('input[name="baseUrl"]').fill("http://127.0.0.1:9/v1");
  await modelForm.locator('input[name="model"]').fill("tiny");
  await modelForm.locator('input[name="apiKeyEnv"]').fill("sk-secret-value");
  await modelForm.getByRole("button", { name: "Save model endpoint" }).click();
  await expect(modelForm).toContainText("NAME of an environment variable");
  await modelForm.locator('input[name="apiKeyEnv"]').fill("LOCAL_MODEL_KEY");
  await modelForm.getByRole("button", { name: "Save model endpoint" }).click();
  await expect(page.getByText("$LOCAL_MODEL_KEY")).toBeVisible();
  await expect(page.getByText("not set on the server")).toBeVisible();
});

test("an unknown replay id is not found", async ({ page }) => {
  for (const path of ["/replays/does-not-exist", "/replays/does-not-exist/compare"]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Replay not found" })).toBeVisible();
  }
});
