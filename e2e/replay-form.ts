import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

/** The API key scripts/e2e-server.mjs starts the server with. */
export const AUTH = { Authorization: "Bearer e2e-test-key-0123456789" };

/** The demo refund session, whose step 1 looks up order 4821 (the replays and counterfactual specs edit it). */
export const REFUND_SESSION = "Refund for cracked pour-over set";

/** Opens the refund session from the session list, then its replay form. */
export async function openReplayForm(page: Page) {
  await page.goto("/sessions?q=refund");
  await page.getByTestId("session-row").filter({ hasText: REFUND_SESSION }).getByRole("link").first().click();
  await page.getByRole("link", { name: "Replay this session" }).click();
  await expect(page.getByRole("heading", { name: "Replay this session" })).toBeVisible();
}
