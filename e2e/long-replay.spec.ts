import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { longChatLog } from "../lib/ingest/long-chat";
import { expect, test } from "./fixtures";

// A replay of a 10,000-turn run opens at once: its page carries the first window of steps (its HTML does not
// grow with the run), the rest loads a window at a time as it scrolls, a step's inputs when it is opened; the
// comparison pages its rows the same way, and finds changes and the first divergence in any window.

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const SHOTS = "test-results/long-replay";
const RECORDED = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};
/** The tool call of turn 49: its result is edited, so every later model call is sent another input. */
const EDITED = 97;

async function importLong(request: APIRequestContext, turns: number) {
  const res = await request.post("/api/v1/sessions?format=openai-chat", {
    headers: AUTH,
    data: { ...longChatLog(turns), metadata: { title: `long replay ${turns} ${Date.now()}` } },
    timeout: 120_000,
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { sessions: { id: string; eventCount: number }[] }).sessions[0]!;
}

/** Replays the session with one tool result edited, and waits for the worker to finish it. */
async function replayEdited(request: APIRequestContext, sessionId: string): Promise<string> {
  const res = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      policy: RECORDED,
      edits: [{ seq: EDITED, op: "replace_tool_result", value: { status: "lost in transit" } }],
    },
    timeout: 120_000,
  });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { replay: { id: string } }).replay.id;
  // Polled through the list (a replay whole, with every step's input, is not what a poll needs).
  await expect
    .poll(
      async () => {
        const list = (await (
          await request.get(`/api/v1/replays?sessionId=${sessionId}`, { headers: AUTH })
        ).json()) as {
          replays: { id: string; status: string }[];
        };
        return list.replays.find((r) => r.id === id)?.status;
      },
      { timeout: 240_000, intervals: [500, 1_000, 2_000] },
    )
    .toBe("completed");
  return id;
}

async function htmlOf(request: APIRequestContext, path: string): Promise<string> {
  const res = await request.get(path);
  expect(res.status()).toBe(200);
  return res.text();
}

/** Scrolls a list to its end until `last` shows (windows load and measure as they come into view). */
async function scrollToEnd(page: Page, list: Locator, last: Locator) {
  await expect(async () => {
    await list.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(last).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000, intervals: [100, 250, 500] });
}

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("a replay of a 10,000-turn run and its comparison open on their first screen and page to their last step", async ({
  page,
  request,
}) => {
  test.setTimeout(600_000);
  const small = await importLong(request, 100);
  const long = await importLong(request, 10_000);
  expect(long.eventCount).toBe(20_002);
  const [smallId, id] = [await replayEdited(request, small.id), await replayEdited(request, long.id)];
  const last = long.eventCount - 1; // the final answer

  // The HTML holds one window of steps (50) and the first screen of pairs, whatever the length.
  const pages = [`/replays/${smallId}`, `/replays/${id}`, `/replays/${smallId}/compare`, `/replays/${id}/compare`];
  const [smallPage, longPage, smallCompare, longCompare] = (await Promise.all(
    pages.map((p) => htmlOf(request, p)),
  )) as [string, string, string, string];
  expect(longPage.match(/data-testid="replay-step"/g)).toHaveLength(50);
  expect(longPage.length / smallPage.length).toBeLessThan(1.1);
  expect(longCompare.length / smallCompare.length).toBeLessThan(1.1);
  expect(longPage.length).toBeLessThan(400_000);
  expect(longCompare.length).toBeLessThan(400_000);
  // The report form likewise: its pair picker carries one window of pairs, not the comparison.
  const [smallForm, longForm] = await Promise.all([
    htmlOf(request, `/reports/new?replayId=${smallId}`),
    htmlOf(request, `/reports/new?replayId=${id}`),
  ]);
  console.log(`new-report HTML: ${smallForm.length} bytes at 100 turns, ${longForm.length} bytes at 10,000 turns`);
  // Not quite equal: at 100 turns the differences the picker opens on are fewer than a window, at 10,000 a window
  // (each row with its type, "input only" for most). Whole, the 10,000-turn form was 13.5 MB.
  expect(longForm.length / smallForm.length).toBeLessThan(1.2);
  expect(longForm.length).toBeLessThan(400_000);

  // First screen: the counts, the first steps as recorded.
  await page.goto(`/replays/${id}`);
  await expect(page.locator("header, div").getByText("20002 of 20002 base steps").first()).toBeVisible();
  const steps = page.getByTestId("replay-step");
  await expect(steps.nth(0)).toContainText("→ get_order_details");
  await expect(steps.nth(0)).toContainText("recorded");
  await expect(steps.nth(0)).toContainText("= 0");
  await expect(steps.nth(1)).toContainText(
    '{"include":["items"],"order_id":"W1000000"} ⇒ {"order_id":"W1000000","status":"pending"',
  );
  await page.screenshot({ path: `${SHOTS}/replay-first-screen.png` });
  expect(await seriousViolations(page)).toEqual([]);

  // The end: the final answer, loaded as the list scrolls; the page holds a few windows, not the branch.
  const list = page.getByTestId("replay-steps");
  const final = page.locator(`#step-${last}`);
  await scrollToEnd(page, list, final);
  await expect(final).toContainText("I checked all 10000 orders: every one is accounted for.");
  await expect(final).toContainText(`= ${last}`);
  expect(await steps.count()).toBeLessThan(200);
  // Opened, it loads the step whole.
  await final.locator("summary").click();
  await expect(final.getByTestId("replay-step-body")).toContainText("Answer");
  await page.screenshot({ path: `${SHOTS}/replay-last-screen.png` });

  // A deep link opens the list at the step, opened: the edited tool call with its new result.
  await page.goto(`/replays/${id}?step=${EDITED}`);
  const edited = page.locator(`#step-${EDITED}`);
  await expect(edited).toHaveAttribute("open", "");
  await expect(edited).toContainText("edit");
  await expect(edited.getByTestId("replay-step-body")).toContainText("lost in transit");

  // The comparison: its counts, the first divergence, the first pair on screen.
  await page.goto(`/replays/${id}/compare`);
  await expect(page.getByTestId("first-divergence")).toContainText(
    `First divergence at pair ${EDITED} (base step ${EDITED}, branch step ${EDITED})`,
  );
  const filter = page.getByRole("combobox", { name: "Show", exact: true });
  // The edited call, then every later model call (input changed, output recorded); the rest equal.
  const changed = 1 + (last - 1 - EDITED + 1) / 2;
  await expect(filter.locator("option")).toHaveText([
    "all (20002)",
    `all differences (${changed})`,
    `changed (${changed})`,
    "inserted (0)",
    "removed (0)",
    "not reached (0)",
  ]);
  const rows = page.getByTestId("compare-row");
  await expect(rows.first()).toHaveAttribute("data-pair-id", "p0-0");
  await expect(rows.first()).toHaveAttribute("data-pair-type", "equal");
  expect(await seriousViolations(page)).toEqual([]);

  // The last pair, paged in as the list scrolls.
  const compareList = page.getByTestId("compare-list");
  await scrollToEnd(page, compareList, page.locator(`[data-pair-id="p${last}-${last}"]`));
  expect(await rows.count()).toBeLessThan(100);
  await page.screenshot({ path: `${SHOTS}/compare-last-screen.png` });

  // The first divergence and j / k, across the first window's edge (100 rows a window).
  const selected = page.locator('[data-testid="compare-row"][aria-selected="true"]');
  await page.getByRole("button", { name: "Jump to first divergence" }).click();
  await expect(page).toHaveURL(new RegExp(`pair=p${EDITED}-${EDITED}`));
  await expect(selected).toHaveAttribute("data-pair-id", `p${EDITED}-${EDITED}`);
  await expect(page.getByTestId("pair-detail")).toContainText("first divergence");
  await page.locator("h1").click();
  await page.keyboard.press("j");
  await expect(selected).toHaveAttribute("data-pair-id", "p98-98");
  await page.keyboard.press("j");
  await expect(selected).toHaveAttribute("data-pair-id", "p100-100");
  await page.keyboard.press("k");
  await expect(selected).toHaveAttribute("data-pair-id", "p98-98");

  // Filtered to changed pairs: position 99 is p294-294, the next window starts at p296-296.
  await filter.selectOption("changed");
  await expect(page).toHaveURL(/filter=changed/);
  await expect(rows.first()).toHaveAttribute("data-pair-id", `p${EDITED}-${EDITED}`);
  await page.goto(`/replays/${id}/compare?filter=changed&pair=p294-294`);
  await expect(selected).toHaveAttribute("data-pair-id", "p294-294");
  await page.locator("h1").click();
  await page.keyboard.press("j");
  await expect(selected).toHaveAttribute("data-pair-id", "p296-296");
  await expect(page).toHaveURL(/pair=p296-296/);
  await scrollToEnd(page, compareList, page.locator(`[data-pair-id="p${last - 1}-${last - 1}"]`));
  await expect(page.locator(`[data-pair-id="p${last - 1}-${last - 1}"]`)).toHaveAttribute("data-pair-type", "changed");

  // The report form's pair picker: it opens on the differences, pages to the last pair as it scrolls, and keeps
  // pins made in any window.
  await page.goto(`/reports/new?replayId=${id}`);
  const pickFilter = page.getByRole("combobox", { name: "Show", exact: true });
  await expect(pickFilter).toHaveValue("changes");
  const choices = page.getByTestId("pair-choice");
  await expect(choices.first()).toHaveAttribute("data-pair-id", `p${EDITED}-${EDITED}`);
  await expect(choices.first().getByRole("checkbox")).toBeDisabled();
  expect(await seriousViolations(page)).toEqual([]);
  await pickFilter.selectOption("all");
  const picker = page.getByTestId("pair-picker");
  const lastChoice = page.locator(`[data-testid="pair-choice"][data-pair-id="p${last}-${last}"]`);
  await scrollToEnd(page, picker, lastChoice);
  expect(await choices.count()).toBeLessThan(100);
  await page
    .getByRole("checkbox", { name: new RegExp(`^Pin pair ${last}, equal: .*\\(base #${last} ↔ branch #${last}\\)$`) })
    .check();
  await pickFilter.selectOption("changes");
  const summary = page.getByTestId("pinned-summary");
  await expect(summary).toContainText("2 pinned");
  await expect(summary.locator("li[data-pair-id]")).toHaveText([
    new RegExp(`^pair ${EDITED}\\D`),
    new RegExp(`^pair ${last}\\D`),
  ]);
  await page.screenshot({ path: `${SHOTS}/report-form-picker.png` });
  await page.getByRole("button", { name: "Save as draft" }).click();
  await expect(page).toHaveURL(/\/reports\/(?!new)[^/?]+$/, { timeout: 60_000 });
  const reportId = new URL(page.url()).pathname.split("/").pop()!;
  const saved = (await (await request.get(`/api/v1/reports/${reportId}`, { headers: AUTH })).json()) as {
    report: { sections: { pinnedPairs: string[] } };
  };
  expect(saved.report.sections.pinnedPairs).toEqual([`p${EDITED}-${EDITED}`, `p${last}-${last}`]);
});

test("the paged replay API: steps, one step whole, comparison rows, and clear refusals", async ({ request }) => {
  test.setTimeout(120_000);
  const session = await importLong(request, 60);
  const id = await replayEdited(request, session.id);
  const get = (path: string, headers: Record<string, string> = AUTH) =>
    request.get(`/api/v1/replays/${id}${path}`, { headers });

  const seqs: number[] = [];
  let cursor: number | null = 0;
  while (cursor !== null) {
    const res = await get(`/steps?cursor=${cursor}&limit=7`);
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { steps: { seq: number }[]; nextCursor: number | null };
    seqs.push(...body.steps.map((s) => s.seq));
    expect(body.steps.every((s) => !("input" in s) && !("output" in s))).toBe(true);
    cursor = body.nextCursor;
  }
  expect(seqs).toEqual([...Array(session.eventCount).keys()]);

  const step = (await (await get(`/steps/${session.eventCount - 2}`)).json()) as {
    step: { kind: string; source: string; input: { messages: unknown[] } };
  };
  expect([step.step.kind, step.step.source, step.step.input.messages.length]).toEqual(["model_call", "recorded", 122]);

  const changed = (await (await get("/comparison/rows?filter=changed&limit=2")).json()) as {
    rows: { id: string; type: string }[];
    total: number;
    nextCursor: number | null;
  };
  expect(changed).toMatchObject({ total: 1 + (session.eventCount - 2 - EDITED + 1) / 2, nextCursor: 2 });
  expect(changed.rows.map((r) => [r.id, r.type])).toEqual([
    [`p${EDITED}-${EDITED}`, "changed"],
    [`p${EDITED + 1}-${EDITED + 1}`, "changed"],
  ]);

  for (const [path, status, text] of [
    ["/steps?limit=0", 400, "limit"],
    ["/steps?limit=501", 400, "limit"],
    ["/steps?cursor=abc", 400, "cursor"],
    ["/steps/abc", 400, "seq"],
    ["/steps/99999", 404, "no step 99999"],
    ["/comparison/rows?filter=odd", 400, "filter"],
    ["/comparison/rows?cursor=-1", 400, "cursor"],
  ] as const) {
    const res = await get(path);
    expect(res.status(), path).toBe(status);
    expect(JSON.stringify(await res.json()), path).toContain(text);
  }
  expect((await request.get("/api/v1/replays/nope/steps", { headers: AUTH })).status()).toBe(404);
  expect((await request.get("/api/v1/replays/nope/comparison/rows", { headers: AUTH })).status()).toBe(404);
  expect((await get("/steps", {})).status()).toBe(401);
});

test("GET /api/v1/replays/:id and /comparison stream over HTTP, whole or ?inputs=delta, and refuse a bad query", async ({
  request,
}) => {
  test.setTimeout(120_000);
  const session = await importLong(request, 60);
  const id = await replayEdited(request, session.id);
  type Step = {
    seq: number;
    kind: string;
    input: { messages?: unknown[] } | null;
    inputPrefix?: { seq: number; count: number } | null;
  };
  const get = (path: string, headers: Record<string, string> = AUTH) =>
    request.get(`/api/v1/replays/${id}${path}`, { headers });

  const full = await get("");
  expect(full.status()).toBe(200);
  expect(full.headers()["content-type"]).toBe("application/json");
  const fullSteps = ((await full.json()) as { replay: { id: string; steps: Step[] } }).replay.steps;
  const delta = (await (await get("?inputs=delta")).json()) as { replay: { id: string; steps: Step[] } };
  expect(delta.replay.id).toBe(id);
  expect(delta.replay.steps.map((s) => s.seq)).toEqual(fullSteps.map((s) => s.seq));
  // The last model call: whole, it repeats the conversation; as stored, it adds its last messages after its prefix.
  const [previous, lastModel] = fullSteps.filter((s) => s.kind === "model_call").slice(-2) as [Step, Step];
  const stored = delta.replay.steps.find((s) => s.seq === lastModel.seq)!;
  const whole = lastModel.input!.messages!;
  expect(stored.inputPrefix?.seq).toBe(previous.seq);
  expect(stored.inputPrefix!.count + stored.input!.messages!.length).toBe(whole.length);
  expect(stored.input!.messages).toEqual(whole.slice(stored.inputPrefix!.count));
  expect(stored.input!.messages!.length).toBeLessThan(5);

  type Pair = { id: string; type: string; base: Step | null; branch: Step | null };
  const comparison = (await (await get("/comparison")).json()) as { comparison: { pairs: Pair[] } };
  const comparisonDelta = (await (await get("/comparison?inputs=delta")).json()) as { comparison: { pairs: Pair[] } };
  expect(comparisonDelta.comparison.pairs.map((p) => p.id)).toEqual(comparison.comparison.pairs.map((p) => p.id));
  const edited = comparison.comparison.pairs.find((p) => p.id === `p${EDITED}-${EDITED}`)!;
  expect(edited.type).toBe("changed");

  for (const path of ["?inputs=whole", "/comparison?inputs=1"]) {
    const res = await get(path);
    expect(res.status(), path).toBe(400);
    expect(JSON.stringify(await res.json()), path).toContain("inputs");
  }
  expect((await request.get("/api/v1/replays/nope", { headers: AUTH })).status()).toBe(404);
  expect((await request.get("/api/v1/replays/nope/comparison?inputs=delta", { headers: AUTH })).status()).toBe(404);
  expect((await get("", {})).status()).toBe(401);
});
