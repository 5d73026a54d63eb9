import { test as base, expect, type Page, type Response } from "@playwright/test";

/**
 * Every e2e test fails if the page asked anything of a host other than this
 * machine: it catches CDN, font and telemetry leaks (Monaco, fonts…).
 */
/**
 * After a navigation to a page, waits until React has taken the document over (the root layout marks it):
 * clicks and file choices made before that reach a page with no handlers and are lost, which a loaded machine
 * makes likely. Not for `waitUntil: "commit"`, which asks for the page before its scripts.
 */
async function interactive(page: Page, response: Response | null, waitUntil: string | undefined): Promise<void> {
  if (waitUntil === "commit" || !response) return;
  if (!(response.headers()["content-type"] ?? "").includes("text/html")) return;
  await page.locator("html[data-interactive]").waitFor({ state: "attached" });
}

export const test = base.extend<{ offsiteRequests: string[] }>({
  page: async ({ page }, use) => {
    const goto = page.goto.bind(page);
    const reload = page.reload.bind(page);
    page.goto = async (url, options) => {
      const response = await goto(url, options);
      await interactive(page, response, options?.waitUntil);
      return response;
    };
    page.reload = async (options) => {
      const response = await reload(options);
      await interactive(page, response, options?.waitUntil);
      return response;
    };
    await use(page);
  },
  offsiteRequests: [
    async ({ context }, use) => {
      const offsite: string[] = [];
      context.on("request", (request) => {
        const url = new URL(request.url());
        if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) return;
        if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost") offsite.push(request.url());
      });
      await use(offsite);
      expect(offsite, "requests that left 127.0.0.1").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
