import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./e2e/chromium";
import { ADMIN_STATE } from "./e2e/global-setup";

const PORT = Number(process.env.E2E_PORT ?? 3100);
/** `npm test` runs two shards at once (scripts/test-all.sh), each with its own server, database and reports. */
const SHARD = process.env.E2E_SHARD ? `-${process.env.E2E_SHARD}` : "";

/**
 * End-to-end tests in Debian's Chromium against `next start` (the production
 * build) on a fresh embedded database in a temporary folder, with the demo
 * data loaded. `npm test` builds first; run `npm run build` before
 * `npm run test:e2e` on its own.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // Playwright empties its output folder at start: keep it apart from the other suites' reports.
  outputDir: `test-results/playwright${SHARD}`,
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // Walkthroughs take 10–50 s on a quiet machine; npm test runs two shards beside the database tests, on two cores.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: `test-results/e2e${SHARD}.json` }]],
  // Signs in once as the e2e server's admin; every test starts signed in (storageState).
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    storageState: ADMIN_STATE,
    browserName: "chromium",
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    // A failed test keeps its trace (actions, network, console, the test's source) and a screenshot, and Playwright
    // writes the page's accessibility tree beside the error. The film strip is left out (Chromium encoding a frame at
    // every paint cost a quarter of the browser side's CPU: two specs, twice each, 112 and 112 CPU-s with it, 89 and
    // 88 without), and so are the DOM snapshots before and after every action (the browser serialising the page each
    // time: 93 CPU-s with them, 84 without, over the same two specs).
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: false },
    screenshot: "only-on-failure",
  },
  webServer: {
    // exec: Playwright runs the command in a shell, which would die on the signal without reaping the server.
    command: `exec node scripts/e2e-server.mjs ${PORT}`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    // SIGTERM, not Playwright's default SIGKILL: the server then stops and is reaped by its parent, so the step's CPU
    // time (npm test prints it) counts the server's work too; killed, it was reparented and its time went uncounted.
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    stdout: "pipe",
    stderr: "pipe",
  },
});
