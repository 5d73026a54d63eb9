/**
 * How fast the comparison page shows a 5,000-step branch, next to a baseline
 * measured in the same run. Builds a fresh PGlite database with one
 * 5,000-step session and a replay of it (one edit, so one pair changes),
 * starts `next start` on it (the build in $NEXT_DIST_DIR, default .next),
 * opens /replays/[id]/compare in Chromium and prints:
 *  - time until the first rows show (navigation to the first visible row),
 *  - frames per second while a script scrolls the list for 2 s,
 * next to the same figures for the plain /replays list (baseline) and the ratio.
 *
 *   npx tsx bench/compare.ts        (BENCH_STEPS, BENCH_PORT to change)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../e2e/chromium";
import { openDatabase } from "../lib/db/client";
import { saveImportedSessions } from "../lib/db/session-save";
import { parseInput } from "../lib/errors";
import { localAdmin } from "../lib/server/principal";
import { StartReplayInput } from "../lib/server/replays/replay-inputs";
import { createReplay } from "../lib/server/replays/replays";
import { runReplay } from "../lib/server/replays/run-queued-replay";
import { toolLevelPreset, type Policy } from "../lib/replay";
import { buildSession, type TurnSpec } from "../lib/replay/session-builder";
import { startServer, type BenchServer } from "./server";

const STEPS = Number(process.env.BENCH_STEPS ?? 5000);
const PORT = Number(process.env.BENCH_PORT ?? 3190);
const ADMIN = { email: "bench@bench.test", password: "bench-admin-password" };
const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

async function prepare(dir: string) {
  const turns: TurnSpec[] = [{ user: "Check every warehouse." }];
  // model + one tool call per turn: two steps each.
  for (let i = 0; turns.length * 2 < STEPS; i++)
    turns.push({
      model: `turn ${i}`,
      calls: [
        { name: i % 3 === 0 ? "lookup_order" : "check_stock", args: { id: i }, result: { id: i, ok: i % 7 !== 0 } },
      ],
    });
  turns.push({ model: "done" }, { final: "All warehouses checked." });
  const events = buildSession(turns, { windowMessages: 6 });
  const db = await openDatabase({ dir, url: "" });
  try {
    const [saved] = await saveImportedSessions(db.prisma, [
      {
        externalId: `bench-${STEPS}`,
        title: `Bench: ${events.length} steps`,
        agent: { name: "bench-agent", adapter: "generic" },
        agentVersion: { version: "1", capabilities: ["tool_policies"] },
        format: "native",
        startedAt: null,
        endedAt: null,
        metadata: {},
        tools: [],
        events,
      },
    ]);
    const editSeq = events.find((e) => e.kind === "tool_call" && e.seq > events.length / 2)!.seq;
    const bench = localAdmin("bench");
    const started = await createReplay(
      bench,
      parseInput(StartReplayInput, {
        sessionId: saved!.id,
        policy: RECORDED,
        edits: [{ seq: editSeq, op: "replace_tool_result", value: { edited: true } }],
      }),
      db.prisma,
    );
    const t0 = performance.now();
    await runReplay(bench, { replayId: started.id }, db.prisma);
    const runMs = performance.now() - t0;
    return { sessionId: saved!.id, replayId: started.id, steps: events.length, runMs };
  } finally {
    await db.close();
  }
}

async function main() {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(dist, "BUILD_ID"))) {
    console.error(
      `No production build in ${dist}/: run \`npm run build\` first (the bench measures next start, not next dev).`,
    );
    process.exitCode = 2;
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-bench-compare-"));
  let server: BenchServer | null = null;
  let browser: Browser | null = null;
  try {
    const { replayId, steps, runMs } = await prepare(dir);
    console.log(
      `prepared: ${steps}-step session and its replay (engine run + one-transaction persist: ${runMs.toFixed(0)} ms)`,
    );
    server = await startServer({ port: PORT, dataDir: dir, admin: ADMIN, timeoutMs: 120_000 });
    const base = server.base;

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    // Pages are for signed-in users: sign in as the admin the server made at start.
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const signedIn = await context.request.post(`${base}/api/auth/sign-in/email`, { data: ADMIN });
    if (!signedIn.ok()) throw new Error(`sign-in in Chromium: HTTP ${signedIn.status()}`);
    const page = await context.newPage();
    const firstRows = async (url: string, selector: string) => {
      await page.goto(`${base}/sessions`); // a neutral page, so each measurement starts from a loaded app
      const t0 = Date.now();
      await page.goto(url, { waitUntil: "commit" });
      await page.locator(selector).first().waitFor({ state: "visible" });
      return Date.now() - t0;
    };
    // A string, not a function: tsx would wrap named arrows in a helper the page does not have.
    const fps = (selector: string) =>
      page.evaluate<number>(`new Promise((resolve) => {
        const el = document.querySelector(${JSON.stringify(selector)});
        const scroller = el && el.scrollHeight > el.clientHeight ? el : document.scrollingElement;
        let frames = 0;
        const start = performance.now();
        function step() {
          frames++;
          scroller.scrollTop += 120;
          if (performance.now() - start < 2000) requestAnimationFrame(step);
          else resolve(frames / ((performance.now() - start) / 1000));
        }
        requestAnimationFrame(step);
      })`);

    // Warm both routes once (first compile of server code paths, caches).
    await firstRows(`${base}/replays`, '[data-testid="replay-row"]');
    await firstRows(`${base}/replays/${replayId}/compare`, '[data-testid="compare-row"]');

    const runs = 3;
    const baseline: number[] = [];
    const compare: number[] = [];
    for (let i = 0; i < runs; i++) {
      baseline.push(await firstRows(`${base}/replays`, '[data-testid="replay-row"]'));
      compare.push(await firstRows(`${base}/replays/${replayId}/compare`, '[data-testid="compare-row"]'));
    }
    // Scroll the page an analyst is using, not one still hydrating: the first
    // screen is server-rendered, so rows show before the list is interactive.
    await page.waitForLoadState("load");
    await page.waitForTimeout(1000);
    const compareFps = await fps('[data-testid="compare-list"]');
    const rendered = await page.locator('[data-testid="compare-row"]').count();
    await page.goto(`${base}/replays`, { waitUntil: "load" });
    await page.waitForTimeout(1000);
    const baselineFps = await fps("body");
    await browser.close();

    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const c = median(compare);
    const b = median(baseline);
    console.log(
      `compare page, ${steps} steps: first rows in ${c} ms (median of ${runs}: ${compare.join(", ")}); ${rendered} row elements in the DOM (virtualized)`,
    );
    console.log(`baseline /replays list:      first rows in ${b} ms (median of ${runs}: ${baseline.join(", ")})`);
    console.log(
      `ratio compare/baseline: ${(c / b).toFixed(2)}   target: first rows under 1000 ms -> ${c < 1000 ? "met" : "NOT met"}`,
    );
    console.log(
      `scrolling: ${compareFps.toFixed(1)} fps on the comparison list, ${baselineFps.toFixed(1)} fps on the baseline page`,
    );
  } finally {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
