import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Two recorded runs compared from the session page ("Compare with…"), and a shared report whose pinned step
// shows the compare page's folded diff, opened at the change, to someone with no account.

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PROMPT = { messages: [{ role: "user", content: "Refund order 4821, the mug arrived cracked" }] };

/** One run of the task: the lookup says delivered (before) or lost (after), and the run goes on differently. */
function run(which: "before" | "after", title: string, agent: string) {
  const after = which === "after";
  return {
    externalId: `e2e-compare-${title}`,
    title,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version: after ? "2.0.0" : "1.0.0", capabilities: ["tool_policies"] },
    events: [
      {
        kind: "model_call",
        name: "gpt-4.1",
        input: PROMPT,
        output: {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "c1", name: "lookup_order", args: { order_id: "4821" } }],
        },
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        input: { callId: "c1", args: { order_id: "4821" } },
        output: { total: 129, status: after ? "lost" : "delivered", items: ["pour-over set", "two mugs"] },
        parentSeq: 0,
      },
      { kind: "final_output", name: "final_output", output: after ? "Your order is lost." : "Refunded $129." },
    ],
  };
}

async function importRun(request: APIRequestContext, doc: object): Promise<string> {
  const res = await request.post("/api/v1/sessions", { headers: AUTH, data: doc });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("compare two runs from the session page, then a shared report shows its pinned step as a folded diff", async ({
  page,
  request,
  browser,
}) => {
  // Two pages, a replay, a share and axe over Monaco's editors at two widths: more than the default minute.
  test.setTimeout(240_000);
  const stamp = Date.now();
  // An agent of this run's own, so that its other run is the only candidate however often the test runs.
  const agent = `e2e-compare-agent-${stamp}`;
  const before = await importRun(request, run("before", `Cracked mug ${stamp}, before the release`, agent));
  const after = await importRun(request, run("after", `Cracked mug ${stamp}, after the release`, agent));

  // "Compare with…" offers the same agent's other run; a search by title finds it too.
  await page.setViewportSize(DESK);
  await page.goto(`/sessions/${before}`);
  await page.getByTestId("compare-with").click();
  const dialog = page.getByRole("dialog", { name: "Compare with another session" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText(`Latest runs of ${agent}`)).toBeVisible();
  await expect(dialog.getByTestId("compare-candidate")).toHaveCount(1);
  await expect(dialog.getByTestId("compare-candidate").first()).toContainText("same agent");
  await dialog.getByLabel("Search by title or id").fill(`${stamp}, after`);
  await expect(dialog.getByText("1 session found")).toBeVisible();
  await dialog.getByTestId("compare-candidate").filter({ hasText: "after the release" }).click();

  // The comparison opens at the first divergence, its diff folded and opened at the change.
  await expect(page).toHaveURL(new RegExp(`/sessions/${before}/compare/${after}(\\?|$)`));
  await expect(page.getByRole("heading", { name: "Compare two runs" })).toBeVisible();
  await expect(page.getByTestId("first-divergence")).toHaveText(
    "First divergence at pair 1 (run A step 1, run B step 1): tool_call lookup_order: result changed",
  );
  await expect(page.getByTestId("compare-row")).toHaveCount(3);
  await expect(page.getByTestId("compare-row").nth(1)).toHaveAttribute("aria-selected", "true");
  const detail = page.getByTestId("pair-detail");
  await expect(detail).toContainText("run A 1 · run B 1");
  await expect(detail.getByTestId("changed-paths")).toContainText("output.status");
  await expect(detail.getByTestId("monaco-diff")).toHaveAttribute("data-first-change-line", /^\d+$/);
  // j: the next change (the final answer).
  await page.getByTestId("compare-list").focus();
  await page.keyboard.press("j");
  await expect(page.getByTestId("compare-row").nth(2)).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/pair=p2-2/);
  // The new pair's diff names its two sides once Monaco has mounted it (a frame after it appears): check then.
  await expect(detail.locator(".native-edit-context")).toHaveCount(2);
  await expect(detail.locator('.native-edit-context[aria-label=""]')).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId("compare-row").nth(1).click();
  await expect(detail.getByTestId("monaco-diff")).toHaveAttribute("data-first-change-line", /^\d+$/);
  await page.screenshot({ path: "test-results/compare-sessions-1280.png", fullPage: true });
  await page.setViewportSize(PHONE);
  // A new layout keeps both sides of the diff named.
  await expect(detail.locator(".native-edit-context")).toHaveCount(2);
  await expect(detail.locator('.native-edit-context[aria-label=""]')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("first-divergence")).toBeVisible();
  await expect(page.getByTestId("pair-detail").getByTestId("monaco-diff")).toHaveAttribute(
    "data-first-change-line",
    /^\d+$/,
  );
  expect.soft(await sidewaysScroll(page)).toBe(0);
  await page.screenshot({ path: "test-results/compare-sessions-390.png", fullPage: true });
  // The same API the page reads: the pairs and a 400 for a session with itself.
  const api = await request.get(`/api/v1/sessions/${before}/compare/${after}`, { headers: AUTH });
  expect(api.status()).toBe(200);
  const doc = (await api.json()) as { comparison: { pairs: { id: string; type: string }[] } };
  expect(doc.comparison.pairs.map((p) => [p.id, p.type])).toEqual([
    ["p0-0", "equal"],
    ["p1-1", "changed"],
    ["p2-2", "changed"],
  ]);
  expect((await request.get(`/api/v1/sessions/${before}/compare/${before}`, { headers: AUTH })).status()).toBe(400);
  expect((await page.goto(`/sessions/${before}/compare/nope-${stamp}`))?.status()).toBe(404);

  // A report of a replay whose refund failed (the demo's refund run), its pinned first divergence shared.
  const sessions = await request.get(`/api/v1/sessions?q=pour-over`, { headers: AUTH });
  const refund = ((await sessions.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId: refund,
      policy: {
        model: "recorded-only",
        drift: "continue_to_terminal",
        maxSteps: 100,
        tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
      },
      edits: [{ seq: 6, op: "replace_tool_result", value: "refund failed: card expired" }],
    },
  });
  expect(started.status(), await started.text()).toBe(201);
  const replayId = ((await started.json()) as { replay: { id: string } }).replay.id;
  await expect
    .poll(async () => {
      const got = await request.get(`/api/v1/replays/${replayId}?steps=none`, { headers: AUTH });
      return ((await got.json()) as { replay: { status: string } }).replay.status;
    })
    .toBe("completed");
  const created = await request.post("/api/v1/reports", {
    headers: AUTH,
    data: {
      replayId,
      title: `Refund diff ${stamp}`,
      sections: { finding: "The refund failed.", pinnedPairs: ["p6-6"] },
      publish: true,
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const reportId = ((await created.json()) as { report: { id: string } }).report.id;
  const shared = await request.post(`/api/v1/reports/${reportId}/share`, { headers: AUTH, data: { expiresIn: "1d" } });
  const shareUrl = ((await shared.json()) as { share: { url: string } }).share.url;

  // Someone with no account opens the link: the pinned step is a diff, folded, opened at the change.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const offsite: string[] = [];
  context.on("request", (r) => {
    const url = new URL(r.url());
    if (["http:", "https:"].includes(url.protocol) && !["127.0.0.1", "localhost"].includes(url.hostname))
      offsite.push(r.url());
  });
  const stranger = await context.newPage();
  for (const size of [DESK, PHONE]) {
    await stranger.setViewportSize(size);
    const res = await stranger.goto(new URL(shareUrl).pathname);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'self'");
    const pair = stranger.getByTestId("report-pair").filter({ has: stranger.getByTestId("report-pair-diff") });
    await expect(pair).toHaveCount(1);
    await expect(pair.getByTestId("changed-paths")).toContainText("output");
    await expect(pair.getByTestId("monaco-diff")).toHaveAttribute("data-first-change-line", /^\d+$/);
    // Folded: the view holds the change, not the whole step.
    await expect(pair.locator(".monaco-editor .line-insert, .monaco-editor .char-insert").first()).toBeVisible();
    // Read-only: the editor's own text areas take no typing, and there is no form.
    for (const area of await stranger.locator("textarea").all()) {
      expect(
        await area.evaluate((t) => (t as HTMLTextAreaElement).readOnly || t.getAttribute("aria-readonly")),
      ).toBeTruthy();
    }
    await expect(stranger.locator("form")).toHaveCount(0);
    expect.soft(await sidewaysScroll(stranger)).toBe(0);
    expect.soft(await seriousViolations(stranger)).toEqual([]);
    await pair.scrollIntoViewIfNeeded();
    await stranger.screenshot({ path: `test-results/share-diff-${size.width}.png`, fullPage: false });
  }
  expect(offsite).toEqual([]);
  await context.close();
});
