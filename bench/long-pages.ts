/**
 * The page figures of bench/long.ts: the session page, the replay page and the comparison page,
 * served by next start (see there for what is measured and how to run it).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../e2e/chromium";
import { openDatabase } from "../lib/db/client";
import { importAndSave } from "../lib/server/ingest/imports";
import { longChatLog } from "../lib/ingest/long-chat";
import { replay, type Policy } from "../lib/replay";
import { startServer, type BenchServer } from "./server";
import { loadReplayComparison } from "../lib/db/replay-comparison";
import { createReportFromReplay as createReport } from "../lib/server/reports/report-snapshot";
import { localAdmin } from "../lib/server/principal";
import { StartReplayInput } from "../lib/server/replays/replay-inputs";
import { startReplay } from "../lib/server/replays/replays";

const ADMIN = { email: "bench@bench.test", password: "bench-admin-password" };

const PAGE_KINDS = ["session", "replay", "compare"] as const;
type PageKind = (typeof PAGE_KINDS)[number];
type PageRow = {
  kind: PageKind;
  turns: number;
  events: number;
  bytes: number[];
  ttfbMs: number[];
  firstScreenMs: number[];
  /** The comparison page: the first request after the server started (its alignment built), and the build in this process. */
  coldTtfbMs?: number;
  buildMs?: number;
};
/** Where each page kind is, and what shows its first screen. */
const PAGE_PATH: Record<PageKind, (id: { session: string; replay: string }) => string> = {
  session: (id) => `/sessions/${id.session}`,
  replay: (id) => `/replays/${id.replay}`,
  compare: (id) => `/replays/${id.replay}/compare`,
};
const FIRST_SCREEN: Record<PageKind, string> = {
  session: '[data-testid="chat-item"]',
  replay: '[data-testid="replay-step"]',
  compare: '[data-testid="compare-row"]',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

export async function pages(
  TURNS: readonly number[],
  policy: Policy,
): Promise<{
  rows: PageRow[];
  baseline: PageRow;
  buildMs: Map<number, number>;
  reportMs: Map<number, number>;
} | null> {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(dist, "BUILD_ID"))) {
    console.log(`\npage: no production build in ${dist}/ (run \`npm run build\`, or set NEXT_DIST_DIR): skipped`);
    return null;
  }
  const port = Number(process.env.BENCH_PORT ?? 3191);
  const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-bench-long-"));
  let server: BenchServer | null = null;
  try {
    // One session per size and a replay of it, stored before the server starts (the server is not what is measured
    // here). The replay edits the first tool result: every later model call is sent another input.
    const sessions: { turns: number; id: string; replayId: string; events: number }[] = [];
    const buildMs = new Map<number, number>();
    const reportMs = new Map<number, number>();
    const db = await openDatabase({ dir, url: "" });
    try {
      for (const turns of TURNS) {
        const result = await importAndSave(db.prisma, JSON.stringify(longChatLog(turns)), { format: "openai-chat" });
        if (!result.ok) throw new Error("import failed");
        const id = result.sessions[0]!.id;
        const input = {
          sessionId: id,
          policy,
          edits: [{ seq: 1, op: "replace_tool_result", value: { status: "lost" } }],
        };
        const started = await startReplay(localAdmin("bench"), StartReplayInput.parse(input), db.prisma);
        const t = performance.now();
        const compared = await loadReplayComparison(db.prisma, started.id);
        buildMs.set(turns, performance.now() - t);
        // An RCA report of it, pinning its first divergence: made from the comparison, the pairs it shows whole.
        const r0 = performance.now();
        await createReport(db.prisma, {
          replayId: started.id,
          title: `${turns} turns`,
          sections: { pinnedPairs: [compared!.comparison.firstDivergence!.id] },
          createdBy: "bench",
        });
        reportMs.set(turns, performance.now() - r0);
        if (compared?.replay.status !== "completed")
          throw new Error(`replay of ${turns} turns: ${compared?.replay.status}`);
        sessions.push({ turns, id, replayId: started.id, events: result.sessions[0]!.eventCount });
        console.log(`  pages: ${turns} turns stored and replayed`);
      }
    } finally {
      await db.close();
    }
    server = await startServer({ port, dataDir: dir, admin: ADMIN });
    const base = server.base;
    // Pages are for signed-in users: sign in as the admin the server made at start.
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify(ADMIN),
    });
    if (!signIn.ok) throw new Error(`sign-in: HTTP ${signIn.status} ${await signIn.text()}`);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");

    const html = async (where: string | null) => {
      const t0 = performance.now();
      const url = where === null ? `${base}/sessions` : `${base}${where}`;
      const res = await fetch(url, { headers: { cookie } });
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      const reader = res.body!.getReader();
      let bytes = 0;
      let ttfbMs = 0;
      for (let first = true; ; first = false) {
        const { done, value } = await reader.read();
        if (first) ttfbMs = performance.now() - t0;
        if (done) break;
        bytes += value.byteLength;
      }
      return { bytes, ttfbMs };
    };
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const signedIn = await context.request.post(`${base}/api/auth/sign-in/email`, { data: ADMIN });
    if (!signedIn.ok()) throw new Error(`sign-in in Chromium: HTTP ${signedIn.status()}`);
    const page = await context.newPage();
    const firstScreen = async (where: string | null, kind: PageKind | null) => {
      await page.goto(`${base}/import`); // a neutral page first, so each measurement starts from a loaded app
      const t0 = performance.now();
      await page.goto(where === null ? `${base}/sessions` : `${base}${where}`, { waitUntil: "commit" });
      await page
        .locator(kind === null ? '[data-testid="session-row"]' : FIRST_SCREEN[kind])
        .first()
        .waitFor({ state: "visible" });
      const ms = performance.now() - t0;
      // What the page loads after its first screen (the replay page's coverage) finishes before the next
      // measurement: one process serves them all.
      await page.waitForLoadState("networkidle");
      return ms;
    };
    const rows: PageRow[] = PAGE_KINDS.flatMap((kind) =>
      sessions.map((s) => ({ kind, turns: s.turns, events: s.events, bytes: [], ttfbMs: [], firstScreenMs: [] })),
    );
    const pathOf = (row: PageRow) => {
      const s = sessions.find((x) => x.turns === row.turns)!;
      return PAGE_PATH[row.kind]({ session: s.id, replay: s.replayId });
    };
    // Warm-up (the routes' first compile, caches): every page once, not counted. The comparison's first request
    // builds its alignment: its time is reported apart.
    for (const row of rows) {
      const served = await html(pathOf(row));
      if (row.kind === "compare") row.coldTtfbMs = served.ttfbMs;
      await firstScreen(pathOf(row), row.kind);
    }
    // The baseline, measured in the same runs: the sessions list (three rows), a page that reads no events.
    await html(null);
    await firstScreen(null, null);
    const baseline: PageRow = { kind: "session", turns: 0, events: 0, bytes: [], ttfbMs: [], firstScreenMs: [] };
    for (let run = 0; run < 5; run++) {
      const listed = await html(null);
      baseline.bytes.push(listed.bytes);
      baseline.ttfbMs.push(listed.ttfbMs);
      baseline.firstScreenMs.push(await firstScreen(null, null));
      for (const row of rows) {
        const served = await html(pathOf(row));
        row.bytes.push(served.bytes);
        row.ttfbMs.push(served.ttfbMs);
        row.firstScreenMs.push(await firstScreen(pathOf(row), row.kind));
      }
    }
    await browser.close();
    return { rows, baseline, buildMs, reportMs };
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const PAGE_TITLE: Record<PageKind, string> = {
  session: "session page",
  replay: "replay page",
  compare: "comparison page",
};

export function reportPages({
  rows: all,
  baseline,
  buildMs,
  reportMs,
}: {
  rows: PageRow[];
  baseline: PageRow;
  buildMs: Map<number, number>;
  reportMs: Map<number, number>;
}) {
  console.log(
    `\nbaseline, the sessions list (a page that reads no events): ${spread(baseline.bytes)} bytes, TTFB ${spread(baseline.ttfbMs)} ms, first rows ${spread(baseline.firstScreenMs)} ms`,
  );
  for (const kind of PAGE_KINDS) {
    const rows = all.filter((r) => r.kind === kind);
    console.log(`\n${PAGE_TITLE[kind]} (next start, embedded database): median of 5 (min–max)`);
    console.log("  turns   events   HTML bytes              bytes/event   TTFB ms          first screen ms (Chromium)");
    for (const r of rows)
      console.log(
        `  ${String(r.turns).padStart(5)}  ${String(r.events).padStart(7)}  ${spread(r.bytes).padEnd(22)}  ${(median(r.bytes) / r.events).toFixed(1).padStart(11)}   ${spread(r.ttfbMs).padEnd(15)}  ${spread(r.firstScreenMs)}`,
      );
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const ratio = (f: (r: PageRow) => number[]) => (median(f(last)) / median(f(first))).toFixed(2);
    const worst = Math.max(...rows.flatMap((r) => r.firstScreenMs));
    console.log(
      `  ratio ${last.turns}/${first.turns} turns, whole page (target ≤ 1.50): HTML bytes ${ratio((r) => r.bytes)}, TTFB ${ratio((r) => r.ttfbMs)}, first screen ${ratio((r) => r.firstScreenMs)}; per event: HTML bytes ${(median(last.bytes) / last.events / (median(first.bytes) / first.events)).toFixed(3)}`,
    );
    console.log(
      `  first screen in Chromium at ${last.turns} turns: ${median(last.firstScreenMs).toFixed(0)} ms median, ${Math.max(...last.firstScreenMs).toFixed(0)} ms worst (target < 1000 ms; worst over all sizes ${worst.toFixed(0)} ms); ratio to the baseline's first rows ${(median(last.firstScreenMs) / median(baseline.firstScreenMs)).toFixed(2)}, TTFB ${(median(last.ttfbMs) / median(baseline.ttfbMs)).toFixed(2)}`,
    );
    if (kind === "compare")
      console.log(
        `  the alignment, built once per replay state (one run each): ${rows.map((r) => `${r.turns} turns ${buildMs.get(r.turns)!.toFixed(0)} ms in this process, first page request TTFB ${r.coldTtfbMs!.toFixed(0)} ms`).join("; ")}; per event ${rows.map((r) => (buildMs.get(r.turns)! / r.events).toFixed(3)).join(" / ")} ms`,
      );
    if (kind === "compare") {
      // What the first request costs per step: flat from the smallest run to the largest when the alignment reads
      // digests and summaries only (a step's output or tool input is read for the rows a window shows).
      const perEvent = (r: PageRow, ms: number) => ms / r.events;
      console.log(
        `  first comparison request per event, ${last.turns} ÷ ${first.turns} turns (target ≤ 1.50): alignment built ${(perEvent(last, buildMs.get(last.turns)!) / perEvent(first, buildMs.get(first.turns)!)).toFixed(2)}, first page request ${(perEvent(last, last.coldTtfbMs!) / perEvent(first, first.coldTtfbMs!)).toFixed(2)}`,
      );
      console.log(
        `  an RCA report of the replay (one run each): ${rows.map((r) => `${r.turns} turns ${reportMs.get(r.turns)!.toFixed(0)} ms`).join(", ")}; per event ${rows.map((r) => perEvent(r, reportMs.get(r.turns)!).toFixed(3)).join(" / ")} ms, ${last.turns} ÷ ${first.turns} ${(perEvent(last, reportMs.get(last.turns)!) / perEvent(first, reportMs.get(first.turns)!)).toFixed(2)}`,
      );
    }
  }
}
