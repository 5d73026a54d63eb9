import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { longChatLog } from "../lib/ingest/long-chat";
import { expect, test } from "./fixtures";

// A 10,000-turn agent run opens at once: the page carries its first screen only (its HTML does not grow
// with the run), the rest loads a window at a time as it scrolls, a step's inputs when it is opened.

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const SHOTS = "test-results/long-session";

async function importLong(request: APIRequestContext, turns: number) {
  const res = await request.post("/api/v1/sessions?format=openai-chat", {
    headers: AUTH,
    data: { ...longChatLog(turns), metadata: { title: `long run ${turns} ${Date.now()}` } },
    timeout: 120_000,
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { sessions: { id: string; eventCount: number }[] }).sessions[0]!;
}

/** The page's HTML as sent (the server-rendered first screen and its data), in bytes. */
async function htmlBytes(request: APIRequestContext, id: string): Promise<number> {
  const res = await request.get(`/sessions/${id}`);
  expect(res.status()).toBe(200);
  return (await res.body()).byteLength;
}

/** Scrolls a list to its end until `last` shows (windows load and measure as they come into view). */
async function scrollToEnd(page: Page, list: Locator, last: Locator) {
  await expect(async () => {
    await list.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(last).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000, intervals: [100, 250, 500] });
}

test("a 10,000-turn session opens on its first screen and scrolls to its last step; its page does not grow with it", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const small = await importLong(request, 100);
  const long = await importLong(request, 10_000);
  // The chat log: a model call per assistant message, a tool call per call, and the final answer.
  expect(long.eventCount).toBe(20_002);
  const lastSeq = long.eventCount - 1; // the final answer; the model call that wrote it is the step before

  // The HTML is the first screen, whatever the length: within 10% of a 100-turn run's, and small.
  const [smallBytes, longBytes] = [await htmlBytes(request, small.id), await htmlBytes(request, long.id)];
  expect(longBytes / smallBytes).toBeLessThan(1.1);
  expect(longBytes).toBeLessThan(400_000);

  // First screen: the system prompt, the user's question, the first tool turns with their results.
  await page.goto(`/sessions/${long.id}`);
  const chat = page.getByTestId("chat-view");
  const items = chat.getByTestId("chat-item");
  await expect(items.nth(0)).toContainText("System prompt (160 characters)");
  await expect(items.nth(1)).toContainText(
    "Hello, I ordered several things last month and I want to know where each of them is.",
  );
  await expect(items.nth(2)).toContainText("Let me check order W1000000 for you (step 1).");
  await expect(items.nth(2).getByTestId("chat-tool-call")).toContainText("get_order_details");
  await items.nth(2).getByTestId("chat-tool-call").locator("summary").click();
  await expect(items.nth(2)).toContainText("Order W1000000 was placed on day 0 and ships from warehouse 0.");
  await page.screenshot({ path: `${SHOTS}/first-screen.png` });

  // The end: the final answer, at the last step; the page holds a window of the conversation, not all of it.
  const final = chat.locator('[data-testid="chat-item"][data-role="assistant"]', {
    hasText: "I checked all 10000 orders: every one is accounted for.",
  });
  await scrollToEnd(page, chat, final);
  await expect(final).toContainText(`step #${lastSeq - 1}`);
  expect(await items.count()).toBeLessThan(300);
  await page.screenshot({ path: `${SHOTS}/last-screen.png` });

  // Steps: the same, a row per step; the last step opens with its full input, loaded when opened.
  await page.getByRole("tab", { name: "Steps" }).click();
  const steps = page.getByTestId("timeline-view");
  const lastStep = page.getByTestId(`event-${lastSeq}`);
  await scrollToEnd(page, steps.getByRole("region", { name: "Timeline" }), lastStep);
  await expect(lastStep).toHaveAttribute("data-kind", "final_output");
  await lastStep.locator("summary").click();
  await expect(lastStep.getByText("Answer", { exact: true })).toBeVisible();
  await expect(lastStep).toContainText("I checked all 10000 orders: every one is accounted for.");
  expect(await steps.locator("details").count()).toBeLessThan(400);

  // A deep link to a step opens the steps view there, with the step open.
  await page.goto(`/sessions/${long.id}?step=12345`);
  const linked = page.getByTestId("event-12345");
  await expect(linked).toBeVisible();
  await expect(linked).toHaveAttribute("open", "");
  await expect(linked).toContainText("Arguments");
  await page.screenshot({ path: `${SHOTS}/deep-link.png` });

  // Search runs over the whole run: one tool turn, found by its order.
  await page.getByLabel("Search this session").fill("W1007919");
  await expect(page.getByTestId("search-count")).toHaveText("1 matching steps");
  await expect(page.getByTestId("timeline-view").locator("details")).toHaveCount(2);
});

test("the paged session API: windows, one step whole, search, and clear refusals", async ({ request }) => {
  const { id, eventCount } = await importLong(request, 30);
  const get = (path: string, headers: Record<string, string> = AUTH) =>
    request.get(`/api/v1/sessions/${id}${path}`, { headers });

  type Summary = { seq: number; kind: string; name: string; preview: string };
  const seqs: number[] = [];
  let cursor: number | null = 0;
  while (cursor !== null) {
    const res = await get(`/events?cursor=${cursor}&limit=7`);
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { events: Summary[]; nextCursor: number | null };
    seqs.push(...body.events.map((e) => e.seq));
    expect(body.events.every((e) => !("input" in e) && !("output" in e))).toBe(true);
    cursor = body.nextCursor;
  }
  expect(seqs.sort((a, b) => a - b)).toEqual([...Array(eventCount).keys()]);

  const conversation = (await (await get("/conversation?limit=500")).json()) as { items: { type: string }[] };
  // The system prompt, the question, 30 tool turns and the answer.
  expect(conversation.items).toHaveLength(33);

  const step = (await (await get(`/events/${eventCount - 2}`)).json()) as {
    event: { kind: string; input: { messages: unknown[] } };
  };
  expect([step.event.kind, step.event.input.messages.length]).toEqual(["model_call", 62]);

  const found = (await (await get("/events?q=get_order_details&in=names")).json()) as {
    events: Summary[];
    matches: number;
    total: number;
  };
  expect([found.matches, found.total]).toEqual([30, eventCount]);

  for (const [path, status, text] of [
    ["/events?limit=0", 400, "limit"],
    ["/events?limit=501", 400, "limit"],
    ["/events?cursor=abc", 400, "cursor"],
    ["/events/abc", 400, "seq"],
    ["/events/99999", 404, "no step 99999"],
    ["/conversation?q=", 400, "q"],
  ] as const) {
    const res = await get(path);
    expect(res.status(), path).toBe(status);
    expect(JSON.stringify(await res.json()), path).toContain(text);
  }
  expect((await request.get("/api/v1/sessions/nope/events", { headers: AUTH })).status()).toBe(404);
  expect((await get("/events", {})).status()).toBe(401);
});
