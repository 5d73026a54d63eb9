import { test as base, expect } from "@playwright/test";

/**
 * Every e2e test fails if the page asked anything of a host other than this
 * machine: it catches CDN, font and telemetry leaks (Monaco, fonts…).
 */
export const test = base.extend<{ offsiteRequests: string[] }>({
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
