import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";

/** The API key scripts/e2e-server.mjs starts the server with. */
export const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** The demo refund session, whose step 1 looks up order 4821 (the replays and counterfactual specs edit it). */
export const REFUND_SESSION = "Refund for cracked pour-over set (order 4821)";

/**
 * Its search: "pour-over" is in that session and its copies (titled otherwise); "refund" is in every
 * session the SDK-export specs record too, which push it off the list's first page when they ran first.
 */
const REFUND_QUERY = "pour-over";

/** The refund session's id, from the API. */
export async function refundSessionId(request: APIRequestContext): Promise<string> {
  const res = await request.get(`/api/v1/sessions?q=${REFUND_QUERY}`, { headers: AUTH });
  expect(res.status()).toBe(200);
  const { sessions } = (await res.json()) as { sessions: { id: string; title: string | null }[] };
  const found = sessions.filter((s) => s.title === REFUND_SESSION);
  expect(found).toHaveLength(1);
  return found[0]!.id;
}

/** Opens the refund session from the session list, then its replay form. */
export async function openReplayForm(page: Page) {
  await page.goto(`/sessions?q=${REFUND_QUERY}`);
  await page.getByTestId("session-row").filter({ hasText: REFUND_SESSION }).getByRole("link").first().click();
  await page.getByRole("link", { name: "Replay this session" }).click();
  await expect(page.getByRole("heading", { name: "Replay this session" })).toBeVisible();
}

/** Waits for a replay a worker runs to stop (finished, paused or failed) and answers its status. */
export async function settledStatus(request: APIRequestContext, replayId: string): Promise<string> {
  let status = "queued";
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/v1/replays/${replayId}`, { headers: AUTH });
        status = ((await res.json()) as { replay: { status: string } }).replay.status;
        return status === "queued" || status === "running";
      },
      { timeout: 60_000 },
    )
    .toBe(false);
  return status;
}
