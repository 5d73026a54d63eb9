import { expect, test } from "./fixtures";
import type { APIRequestContext } from "@playwright/test";

const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };
const FAIL_ON_MISS = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

type ApiReplay = { id: string; status: string; finishedAt: string | null; error: { message: string } | null };

async function replayOf(request: APIRequestContext, id: string): Promise<ApiReplay> {
  return ((await (await request.get(`/api/v1/replays/${id}`, { headers: AUTH })).json()) as { replay: ApiReplay })
    .replay;
}

/** Waits until a worker has run the replay (the POST answers with it queued). */
async function settled(request: APIRequestContext, id: string): Promise<ApiReplay> {
  await expect
    .poll(async () => (await replayOf(request, id)).status, { timeout: 30_000 })
    .not.toMatch(/^(queued|running)$/);
  return replayOf(request, id);
}

test("the jobs page lists a failed replay with its reason, and Retry runs it again on a worker", async ({
  page,
  request,
}) => {
  const sessions = (await (await request.get("/api/v1/sessions?q=refund&limit=200", { headers: AUTH })).json()) as {
    sessions: { id: string; title: string | null }[];
  };
  // The demo session itself: other specs import copies of it whose titles also match "refund".
  const sessionId = sessions.sessions.find((s) => s.title === "Refund for cracked pour-over set (order 4821)")!.id;
  // An argument the recording never saw, under a rule that stops on a miss: the run ends failed.
  const started = await request.post("/api/v1/replays", {
    headers: AUTH,
    data: {
      sessionId,
      policy: FAIL_ON_MISS,
      edits: [{ seq: 1, op: "replace_tool_args", value: { order_id: "9999" } }],
    },
  });
  expect(started.status()).toBe(201);
  const { id } = ((await started.json()) as { replay: ApiReplay }).replay;
  const failed = await settled(request, id);
  expect(failed.status).toBe("failed");

  await page.goto("/settings");
  await page.getByRole("link", { name: /Jobs/ }).first().click();
  await expect(page.getByRole("heading", { name: "Jobs", exact: true })).toBeVisible();
  await expect(page.getByText(/worker\(s\) in this server process/)).toBeVisible();
  const row = page.getByTestId("job-failed").filter({ has: page.locator(`a[href="/replays/${id}"]`) });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Refund for cracked pour-over set");
  await expect(row).toContainText("on_miss: fail");
  await page.screenshot({ path: "test-results/jobs-page.png", fullPage: true });

  await row.getByRole("button", { name: "Retry" }).click();
  // The worker runs it again from its log; the same miss fails it again, later than the first time.
  await expect
    .poll(
      async () => {
        const again = await replayOf(request, id);
        return again.status === "failed" && again.finishedAt !== null && again.finishedAt > failed.finishedAt!;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  await page.reload();
  await expect(page.getByTestId("job-failed").filter({ has: page.locator(`a[href="/replays/${id}"]`) })).toHaveCount(1);
});
