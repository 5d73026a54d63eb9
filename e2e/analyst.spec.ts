import type { APIRequestContext } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "./fixtures";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const PAUSE = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "pause" } },
};
const SHOTS = "test-results/analyst";

async function refundSession(request: APIRequestContext): Promise<{ id: string; agent: { id: string; name: string } }> {
  const res = await request.get("/api/v1/sessions?q=pour-over", { headers: AUTH });
  expect(res.status()).toBe(200);
  const { sessions } = (await res.json()) as { sessions: { id: string; agent: { id: string; name: string } }[] };
  expect(sessions).toHaveLength(1);
  return sessions[0]!;
}

async function settled(request: APIRequestContext, id: string) {
  let replay: { status: string } = { status: "running" };
  await expect
    .poll(async () => {
      const res = await request.get(`/api/v1/replays/${id}`, { headers: AUTH });
      replay = ((await res.json()) as { replay: { status: string } }).replay;
      return replay.status;
    })
    .not.toMatch(/^(running|queued)$/);
  return replay;
}

test("a session reads as a conversation; a waterfall, search and expand-all work on it", async ({ page, request }) => {
  const session = await refundSession(request);
  await page.goto(`/sessions/${session.id}`);

  // Chat: each message once, where it first appears; the user's turn once although three model calls resend it.
  const chat = page.getByTestId("chat-view");
  await expect(chat).toBeVisible();
  await expect(page.getByRole("tab", { name: "Conversation" })).toHaveAttribute("aria-selected", "true");
  await expect(
    chat.locator('[data-testid="chat-item"][data-role="user"]').filter({ hasText: "Yes please, go ahead." }),
  ).toHaveCount(1);
  await expect(chat.locator('[data-testid="chat-item"][data-role="user"]').first()).toContainText("pour-over");
  // The assistant's text is Markdown, not a JSON string with \n escapes.
  await expect(chat).not.toContainText("\\n");
  // The two calls of step 0 are grouped as parallel, inline, with their recorded results.
  const parallel = chat.getByTestId("parallel-calls");
  await expect(parallel).toHaveCount(1);
  await expect(parallel).toContainText("parallel · 2 calls");
  await expect(parallel.getByTestId("chat-tool-call")).toHaveCount(2);
  await parallel.getByTestId("chat-tool-call").filter({ hasText: "lookup_order" }).locator("summary").click();
  await expect(parallel).toContainText("Dana Whitfield");
  await page.screenshot({ path: `${SHOTS}/session-chat.png`, fullPage: true });

  // Search: "/" focuses it; the query filters the messages and lands in the URL.
  await page.locator("body").press("/");
  await expect(page.getByLabel("Search this session")).toBeFocused();
  await page.keyboard.type("refund_payment");
  await expect(page).toHaveURL(/q=refund_payment/);
  await expect(page.getByTestId("search-count")).toHaveText(/^1 of \d+ messages$/);
  await expect(chat.getByTestId("chat-item")).toHaveCount(1);
  await expect(chat.getByTestId("chat-tool-call")).toContainText("refund_payment");
  // The match is highlighted where it shows.
  await expect(page.getByTestId("search-results")).toHaveAttribute("data-highlighted", /^[1-9]\d*$/);
  expect(await page.evaluate(() => CSS.highlights.get("session-search")?.size ?? 0)).toBeGreaterThan(0);

  // Waterfall: one row per step, tokens and cost, the overlapping calls marked parallel; the query still applies.
  await page.getByRole("tab", { name: "Latency" }).click();
  await expect(page).toHaveURL(/view=waterfall/);
  await expect(page.getByTestId("waterfall-row")).toHaveCount(1);
  await page.getByLabel("Search this session").fill("");
  await expect(page.getByTestId("waterfall-row")).toHaveCount(9);
  await expect(page.locator('[data-testid="waterfall-row"][data-parallel="0"]')).toHaveCount(2);
  await expect(page.locator('[data-testid="waterfall-row"][data-seq="6"]')).toContainText("1.38 s");
  // The time axis runs from the run's start to its end, and a name is whole on hover.
  const waterfall = page.getByTestId("waterfall-view");
  await expect(waterfall.getByRole("img", { name: /^time, from 0 to \d/ })).toBeVisible();
  await expect(waterfall.locator('[data-seq="6"] [title]').first()).toHaveAttribute("title", /\S/);
  await page.screenshot({ path: `${SHOTS}/session-waterfall.png`, fullPage: true });

  // Steps: expand all opens every step, collapse all closes them; the view survives a reload.
  await page.getByRole("tab", { name: "Steps" }).click();
  const steps = page.getByTestId("timeline-view").locator("details");
  await expect(steps).toHaveCount(9);
  await expect(page.getByTestId("parallel-group")).toHaveCount(1);
  await page.getByRole("button", { name: "Expand all" }).click();
  for (let k = 0; k < 9; k++) await expect(steps.nth(k)).toHaveAttribute("open", "");
  await page.getByRole("button", { name: "Collapse all" }).click();
  for (let k = 0; k < 9; k++) await expect(steps.nth(k)).not.toHaveAttribute("open");
  await page.reload();
  await expect(page.getByRole("tab", { name: "Steps" })).toHaveAttribute("aria-selected", "true");
  await page.getByLabel("Search this session").fill("get_current_time");
  await expect(page.getByTestId("search-count")).toHaveText("1 matching steps");
  await expect(page.getByTestId("timeline-view").locator("li[data-search]:visible")).toHaveCount(1);
});

test("a comparison shows the change: an edited call is one changed pair opened at the change; a paused branch's unreached steps count for nothing", async ({
  page,
  request,
}) => {
  const session = await refundSession(request);
  // Counterfactual: refund $100 instead of $129. History has no such call: the branch pauses there.
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId: session.id,
      policy: PAUSE,
      edits: [{ seq: 6, op: "replace_tool_args", value: { order_id: "4821", amount: 100 } }],
    },
  });
  expect(started.status()).toBe(201);
  const id = ((await started.json()) as { replay: { id: string } }).replay.id;
  expect((await settled(request, id)).status).toBe("paused");

  // Paused: the base steps the branch never reached are "not reached", and no metric counts them.
  await page.goto(`/replays/${id}/compare`);
  await expect(page.getByTestId("first-divergence")).toContainText("Every step the branch ran equals the base run");
  await expect(page.getByTestId("first-divergence")).toContainText("before the last 3 base steps");
  await expect(page.locator('[data-testid="compare-row"][data-pair-type="unreached"]')).toHaveCount(3);
  await expect(page.locator('[data-testid="compare-row"][data-pair-type="removed"]')).toHaveCount(0);
  await expect(page.getByTestId("not-reached-note")).toContainText("The branch ended before 3 base steps");
  const metrics = page.getByTestId("metrics");
  await expect(metrics.locator("tr", { hasText: "Steps" })).toContainText("66±0");
  await expect(metrics.locator("tr", { hasText: "Cost" })).toContainText("±0");
  await page.screenshot({ path: `${SHOTS}/compare-paused.png`, fullPage: true });

  // Resumed with a fixture: the edited refund is one changed pair, named by its arguments.
  const fixture = await request.post(`/api/v1/replays/${id}/fixtures`, {
    headers: AUTH,
    data: { output: "refund issued: $100.00", note: "partial refund approved by the store" },
  });
  expect(fixture.status()).toBe(200);
  expect((await settled(request, id)).status).toBe("completed");
  await page.goto(`/replays/${id}/compare`);
  await expect(page.getByTestId("first-divergence")).toContainText(
    "tool_call refund_payment: arguments, result changed",
  );
  await expect(page.locator('[data-testid="compare-row"][data-pair-type="removed"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="compare-row"][data-pair-type="inserted"]')).toHaveCount(0);
  await page.getByRole("button", { name: "Jump to first divergence" }).click();
  await expect(page).toHaveURL(/pair=p6-6/);
  const detail = page.getByTestId("pair-detail");
  await expect(detail.getByTestId("changed-paths")).toContainText("input.args.amount");
  await expect(detail.getByTestId("changed-paths")).toContainText("output");
  // The diff opens at the change: the changed amount is on screen in the branch's side.
  const diff = detail.getByTestId("monaco-diff");
  // (Monaco renders only the lines on screen: seeing both values means the view is at the change.)
  await expect(diff).toContainText('"amount": 100');
  await expect(diff).toContainText('"amount": 129');

  // j / k walk the changes: the next change after the refund is the model call that read its result.
  await page.locator("h1").click();
  await page.keyboard.press("j");
  await expect(page).toHaveURL(/pair=p7-7/);
  await expect(detail).toContainText("model_call");
  // A long prompt's diff opens folded at its first difference, not at line 1.
  await expect(diff).toHaveAttribute("data-first-change-line", /^(?!1$)\d+$/);
  await expect(diff).toContainText("$100.00");
  await page.screenshot({ path: `${SHOTS}/compare-changed.png`, fullPage: true });
  await page.keyboard.press("k");
  await expect(page).toHaveURL(/pair=p6-6/);
});

test("scripts: sessions show agent.id, policies take agentName, OTLP imports name their framework; the experiment form says why its picker is empty", async ({
  page,
  request,
}) => {
  const session = await refundSession(request);
  expect(session.agent).toMatchObject({ name: "harbor-pine-support", id: expect.any(String) });
  const one = await request.get(`/api/v1/sessions/${session.id}`, { headers: AUTH });
  expect(((await one.json()) as { session: { agent: unknown } }).session.agent).toEqual({
    id: session.agent.id,
    name: "harbor-pine-support",
    adapter: "openai-agents",
  });

  const policy = {
    model: "recorded-only",
    drift: "continue_to_terminal",
    tools: { default: { type: "history", scope: "cohort_version", on_miss: "error_result" } },
  };
  const byName = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name: "by agent name", agentName: "harbor-pine-support", policy },
  });
  expect(byName.status()).toBe(201);
  const saved = (await byName.json()) as { id: string; warnings: { code: string; severity: string }[] };
  // cohort_version saves, with its note; the adapter's caveat is a warning, as a replay says it.
  expect(saved.warnings.map((w) => [w.code, w.severity])).toEqual([
    ["openai_agents_history_default", "warning"],
    ["cohort_scope_outside_experiment", "warning"],
  ]);
  const got = await request.get(`/api/v1/policies/${saved.id}`, { headers: AUTH });
  expect(((await got.json()) as { policy: { agent: { id: string } | null } }).policy.agent?.id).toBe(session.agent.id);
  // The same document on one session is refused, naming the scope.
  const replay = await request.post("/api/v1/replays", { headers: AUTH, data: { sessionId: session.id, policy } });
  expect(replay.status()).toBe(400);
  expect(await replay.text()).toContain("applies in experiments");

  const unknown = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name: "x", agentName: "no-such-agent", policy },
  });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toEqual({
    error: {
      code: "not_found",
      message: 'No agent named "no-such-agent".',
      issues: [{ path: "agentName", message: "unknown agent" }],
    },
  });
  const both = await request.post("/api/v1/policies", {
    headers: AUTH,
    data: { name: "x", agentName: "harbor-pine-support", agentId: session.agent.id, policy },
  });
  expect(both.status()).toBe(400);
  expect(await both.text()).toContain("give agentId or agentName, not both");

  // AI SDK 7's GenAI spans carry no ai.* attribute; the import still names the framework.
  const body = readFileSync(path.join("lib/ingest/otlp/__fixtures__/ai7-genai-generate.json"));
  const traces = await request.post("/v1/traces", {
    headers: { ...AUTH, "content-type": "application/json", "x-api-key": "e2e-test-key-0123456789" },
    data: body,
  });
  expect(traces.status()).toBe(200);
  const list = await request.get("/api/v1/sessions?agent=support-agent", { headers: AUTH });
  const imported = ((await list.json()) as { sessions: { agent: { adapter: string } }[] }).sessions;
  expect(imported.length).toBeGreaterThan(0);
  expect(imported.every((s) => s.agent.adapter === "vercel-ai-sdk")).toBe(true);

  // The only saved policy belongs to harbor-pine-support (this file runs first on a fresh database):
  // for the τ-bench agent the policy picker is empty, and says why.
  await page.goto("/experiments/new");
  const agentSelect = page.getByLabel(/Agent version/);
  const tau = agentSelect.locator("option", { hasText: "tau-bench-airline-agent" });
  await agentSelect.selectOption((await tau.getAttribute("value")) ?? "");
  await expect(
    page.getByRole("status").filter({ hasText: "No saved policy can run on tau-bench-airline-agent" }),
  ).toContainText("the one saved policy (by agent name) belongs to other agents");
  await expect(page.getByRole("link", { name: "Create a policy for tau-bench-airline-agent" })).toHaveAttribute(
    "href",
    "/policies",
  );
  await page.screenshot({ path: `${SHOTS}/experiment-empty-picker.png`, fullPage: true });
});
