/**
 * How the comparison of base and branch scales, and how fast its page shows a
 * 10,000-turn one. Prints, with the spread of BENCH_RUNS runs (default 3) and
 * the load average, ratios within one run (the machine may be shared):
 *
 * Figures 1 and 2 are this process's CPU time (the embedded database runs in
 * it), so that waiting for a busy machine's cores is not counted.
 *
 *  1. The alignment alone (the engine's compareRuns, in this process) at 1,000
 *     and 10,000 turns (two steps a turn), per step, and the ratio of the two
 *     per-step figures (flat, within 1.3×, when it is linear), for two shapes:
 *     the first tool result edited (every later model call sent another input),
 *     and every tool call sent other arguments (a new cache key at each call: the
 *     shape that made the old signature diff quadratic, 15 s at 10,000 steps).
 *  2. The stored comparison's build (read both runs' summaries from the embedded
 *     database, align, write one row per pair: what a run does after storing its
 *     steps), at 1,000 and 10,000 turns of an OpenAI chat log, per step and the
 *     ratio of the two.
 *  3. The compare page of the 10,000-turn replay in Chromium (next start on the
 *     build in $NEXT_DIST_DIR, default .next): time from navigation to the first
 *     rows on screen, next to the sessions list's (a page that reads no
 *     events) as the baseline; then a script scrolls the list for 3 s and counts
 *     the distinct rows that were in the DOM (rows paged in as it scrolls: a
 *     frame rate over a list that did not move measures nothing), with the
 *     frames per second.
 *
 *   npx tsx bench/compare.ts   (BENCH_RUNS, BENCH_PORT, BENCH_PAGES=0 for 1 and 2 alone)
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../e2e/chromium";
import { openDatabase } from "../lib/db/client";
import { importAndSave } from "../lib/server/ingest/imports";
import { longChatLog } from "../lib/ingest/long-chat";
import { compareRuns, type AlignStats, type Policy, type SessionEvent } from "../lib/replay";
import { localAdmin } from "../lib/server/principal";
import { StartReplayInput } from "../lib/server/replays/replay-inputs";
import { startReplay } from "../lib/server/replays/replays";
import { buildStoredComparison } from "../lib/server/replays/comparison-store";
import { startServer, type BenchServer } from "./server";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 3190);
const SIZES = [1_000, 10_000] as const;
const ADMIN = { email: "bench@bench.test", password: "bench-admin-password" };
const POLICY: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
/** This process's CPU time in ms (user + system): a busy machine's waits are not counted. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

// ---------------------------------------------------------------------------
// 1. The alignment alone.

function step(seq: number, kind: SessionEvent["kind"], name: string, cacheKey: string | null, output: unknown) {
  return {
    seq,
    kind,
    name,
    input: cacheKey === null ? { messages: [] } : { args: { id: cacheKey } },
    output,
    error: null,
    status: "completed",
    startedAt: null,
    durationMs: 5,
    usage: null,
    parentSeq: null,
    cacheKey,
    occurrence: null,
  } satisfies SessionEvent;
}

/** A run of `turns` model + tool steps, and a branch of it of the given shape. */
function runs(turns: number, shape: "first result edited" | "every call's arguments changed") {
  const base: SessionEvent[] = [];
  const branch: SessionEvent[] = [];
  for (let t = 0; t < turns; t++) {
    base.push(step(2 * t, "model_call", "gpt", null, { content: `m${t}` }));
    base.push(step(2 * t + 1, "tool_call", t % 3 ? "lookup" : "check", `k${t}`, { ok: t }));
    branch.push(step(2 * t, "model_call", "gpt", null, { content: `m${t}` }));
    const key = shape === "every call's arguments changed" ? `other${t}` : `k${t}`;
    const out = shape === "first result edited" && t === 0 ? { edited: true } : { ok: t };
    branch.push(step(2 * t + 1, "tool_call", t % 3 ? "lookup" : "check", key, out));
  }
  return { base, branch };
}

function alignmentFigures() {
  console.log(`\n1. The alignment alone (compareRuns in this process), CPU ms per step: median of ${RUNS} (min–max)`);
  for (const shape of ["first result edited", "every call's arguments changed"] as const) {
    const perStep = new Map<number, number[]>();
    const ratios: number[] = [];
    const work = new Map<number, number>();
    // Once each, not counted: the code's first compilation.
    for (const turns of SIZES) {
      const { base, branch } = runs(turns, shape);
      compareRuns(base, branch, { deltas: false });
    }
    for (let run = 0; run < RUNS; run++) {
      const inRun = new Map<number, number>();
      for (const turns of SIZES) {
        const { base, branch } = runs(turns, shape);
        const stats: AlignStats = { steps: 0 };
        const t0 = cpuMs();
        compareRuns(base, branch, { deltas: false, stats });
        const ms = (cpuMs() - t0) / base.length;
        inRun.set(turns, ms);
        perStep.set(turns, [...(perStep.get(turns) ?? []), ms]);
        work.set(turns, stats.steps / base.length);
      }
      ratios.push(inRun.get(SIZES[1])! / inRun.get(SIZES[0])!);
    }
    console.log(`  ${shape}:`);
    for (const turns of SIZES)
      console.log(
        `    ${String(turns).padStart(6)} turns (${2 * turns} steps): ${spread(perStep.get(turns)!, 5)} ms/step; ${work.get(turns)!.toFixed(1)} operations/step`,
      );
    console.log(
      `    per-step ratio ${SIZES[1]} ÷ ${SIZES[0]} turns, within each run: ${spread(ratios, 2)} (target ≤ 1.30); operations per step ${(work.get(SIZES[1])! / work.get(SIZES[0])!).toFixed(2)}`,
    );
  }
}

// ---------------------------------------------------------------------------
// 2 and 3. The stored comparison and the page.

async function prepare(dir: string) {
  const db = await openDatabase({ dir, url: "" });
  const replays = new Map<number, { id: string; steps: number }>();
  try {
    for (const turns of SIZES) {
      const imported = await importAndSave(db.prisma, JSON.stringify(longChatLog(turns)), { format: "openai-chat" });
      if (!imported.ok) throw new Error("import failed");
      // The first tool result edited: every later model call is sent another input (its output recorded).
      const started = await startReplay(
        localAdmin("bench"),
        StartReplayInput.parse({
          sessionId: imported.sessions[0]!.id,
          policy: POLICY,
          edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
        }),
        db.prisma,
      );
      replays.set(turns, { id: started.id, steps: imported.sessions[0]!.eventCount });
      console.log(`  prepared: ${turns} turns (${imported.sessions[0]!.eventCount} steps) imported and replayed`);
    }
    console.log(
      `\n2. The stored comparison's build (embedded database: read both runs' summaries, align, write a row a pair; the embedded database runs in this process), CPU ms per step: median of ${RUNS} (min–max)`,
    );
    const perStep = new Map<number, number[]>();
    const ratios: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const inRun = new Map<number, number>();
      for (const turns of SIZES) {
        const r = replays.get(turns)!;
        const t0 = cpuMs();
        await buildStoredComparison(db.prisma, r.id);
        const ms = (cpuMs() - t0) / r.steps;
        inRun.set(turns, ms);
        perStep.set(turns, [...(perStep.get(turns) ?? []), ms]);
      }
      ratios.push(inRun.get(SIZES[1])! / inRun.get(SIZES[0])!);
    }
    for (const turns of SIZES)
      console.log(
        `    ${String(turns).padStart(6)} turns (${replays.get(turns)!.steps} steps): ${spread(perStep.get(turns)!, 4)} ms/step, ${spread(
          perStep.get(turns)!.map((x) => x * replays.get(turns)!.steps),
        )} ms in all`,
      );
    console.log(
      `    per-step ratio ${SIZES[1]} ÷ ${SIZES[0]} turns, within each run: ${spread(ratios, 2)} (target ≤ 1.30)`,
    );
  } finally {
    await db.close();
  }
  return replays;
}

async function pageFigures(dir: string, replayId: string, steps: number) {
  const server: BenchServer = await startServer({ port: PORT, dataDir: dir, admin: ADMIN, timeoutMs: 120_000 });
  let browser: Browser | null = null;
  try {
    const base = server.base;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const signedIn = await context.request.post(`${base}/api/auth/sign-in/email`, { data: ADMIN });
    if (!signedIn.ok()) throw new Error(`sign-in in Chromium: HTTP ${signedIn.status()}`);
    const page = await context.newPage();
    const firstRows = async (url: string, selector: string) => {
      await page.goto(`${base}/import`); // a neutral page, so each measurement starts from a loaded app
      const t0 = performance.now();
      await page.goto(url, { waitUntil: "commit" });
      await page.locator(selector).first().waitFor({ state: "visible" });
      const ms = performance.now() - t0;
      await page.waitForLoadState("networkidle");
      return ms;
    };
    const compareUrl = `${base}/replays/${replayId}/compare`;
    // Warm both routes once (first compile of server code paths).
    await firstRows(`${base}/sessions`, '[data-testid="session-row"]');
    await firstRows(compareUrl, '[data-testid="compare-row"]');
    const baseline: number[] = [];
    const compare: number[] = [];
    const ratios: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const b = await firstRows(`${base}/sessions`, '[data-testid="session-row"]');
      const c = await firstRows(compareUrl, '[data-testid="compare-row"]');
      baseline.push(b);
      compare.push(c);
      ratios.push(c / b);
    }
    console.log(
      `\n3. The compare page of the ${steps}-step replay (next start, Chromium): median of ${RUNS} (min–max)`,
    );
    console.log(`    first rows on screen: ${spread(compare)} ms (target < 1000 ms)`);
    console.log(`    baseline, the sessions list's first rows: ${spread(baseline)} ms`);
    console.log(`    ratio compare ÷ baseline, within each run: ${spread(ratios, 2)}`);

    // Scroll the list for 3 s, a screen a frame at most, and count the distinct rows that were in the DOM.
    const scrolls: { rows: number; fps: number; scrolledPx: number; pending: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      await page.goto(compareUrl, { waitUntil: "load" });
      await page.locator('[data-testid="compare-row"]').first().waitFor({ state: "visible" });
      await page.waitForLoadState("networkidle");
      // A string, not a function: tsx would wrap named arrows in a helper the page does not have.
      scrolls.push(
        await page.evaluate<{
          rows: number;
          fps: number;
          scrolledPx: number;
          pending: number;
        }>(`new Promise((resolve) => {
          const list = document.querySelector('[data-testid="compare-list"]');
          const seen = new Set();
          let frames = 0;
          let pending = 0;
          const start = performance.now();
          function frame() {
            frames++;
            for (const row of list.querySelectorAll('[data-testid="compare-row"]')) seen.add(row.getAttribute("data-pair-id"));
            pending += list.querySelectorAll('[aria-busy]').length > 0 ? 1 : 0;
            list.scrollTop += 90;
            if (performance.now() - start < 3000) requestAnimationFrame(frame);
            else resolve({ rows: seen.size, fps: frames / ((performance.now() - start) / 1000), scrolledPx: list.scrollTop, pending });
          }
          requestAnimationFrame(frame);
        })`),
      );
    }
    console.log(
      `    scrolling the list for 3 s: ${spread(scrolls.map((s) => s.rows))} distinct rows in the DOM, ${spread(
        scrolls.map((s) => s.fps),
        1,
      )} frames/s, scrolled ${spread(scrolls.map((s) => s.scrolledPx))} px; frames with rows still loading ${spread(
        scrolls.map((s) => s.pending),
      )}`,
    );
  } finally {
    await browser?.close();
    await server.stop();
  }
}

async function main() {
  console.log(`load average at start: ${load()} (${RUNS} runs each)`);
  alignmentFigures();
  const dist = process.env.NEXT_DIST_DIR || ".next";
  const pages = process.env.BENCH_PAGES !== "0";
  if (pages && !existsSync(path.join(dist, "BUILD_ID"))) {
    console.error(`No production build in ${dist}/: run \`npm run build\` first, or BENCH_PAGES=0.`);
    process.exitCode = 2;
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-bench-compare-"));
  try {
    const replays = await prepare(dir);
    if (pages) {
      const largest = replays.get(SIZES[1])!;
      await pageFigures(dir, largest.id, largest.steps);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nload average at the end: ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
