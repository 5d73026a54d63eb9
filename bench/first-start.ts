/**
 * The first start, as a newcomer has it after `npm install`: `npm start` (scripts/start.sh) with no build and an
 * empty data folder, timed to the build's end, to the server's "listening" line, and to the first page served
 * (the sign-in page a new visitor is sent to). The build goes to a folder of its own (NEXT_DIST_DIR) and the
 * database to a temporary one, so the checkout's own build and data are left alone. Install time is not counted:
 * it depends on the network, not on us.
 *
 * Runs it `--runs N` times (default 1: each run is a whole build) and prints each figure's runs, the load average
 * before and after, and the last line `first-page-s X` (the median). The target is under 240 s on two cores.
 * Run: npm run bench:first-start [-- --runs 3]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 1) : 1;
const PORT = 3390;

interface Run {
  buildS: number;
  listeningS: number;
  firstPageS: number;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function firstPage(deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/sign-in`, { redirect: "manual" });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error("the first page was not served within 15 minutes");
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function oneRun(): Promise<Run> {
  const dist = ".next-first-start";
  rmSync(path.join(root, dist), { recursive: true, force: true });
  const data = mkdtempSync(path.join(tmpdir(), "branchpoint-first-start-"));
  const t0 = Date.now();
  let buildS = 0;
  let listeningS = 0;
  const child = spawn("bash", ["scripts/start.sh"], {
    cwd: root,
    env: { ...process.env, NEXT_DIST_DIR: dist, BRANCHPOINT_DATA_DIR: data, PORT: String(PORT), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seen = (chunk: Buffer) => {
    const text = chunk.toString();
    if (buildS === 0 && /\] Built\./.test(text)) buildS = (Date.now() - t0) / 1000;
    if (listeningS === 0 && /is listening on/.test(text)) listeningS = (Date.now() - t0) / 1000;
  };
  child.stdout.on("data", seen);
  child.stderr.on("data", seen);
  try {
    await firstPage(t0 + 15 * 60_000);
    return { buildS, listeningS, firstPageS: (Date.now() - t0) / 1000 };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(data, { recursive: true, force: true });
    rmSync(path.join(root, dist), { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const show = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(", ");

console.log(`first start: ${RUNS} run(s); load average before: ${load()}`);
const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await oneRun();
  runs.push(r);
  console.log(
    `run ${i + 1}: build ${r.buildS.toFixed(1)} s, listening ${r.listeningS.toFixed(1)} s, first page ${r.firstPageS.toFixed(1)} s`,
  );
}
console.log(`build done (s):       ${show(runs.map((r) => r.buildS))}`);
console.log(`server listening (s): ${show(runs.map((r) => r.listeningS))}`);
console.log(`first page (s):       ${show(runs.map((r) => r.firstPageS))} (target under 240 on two cores)`);
console.log(`load average after: ${load()}`);
console.log(`first-page-s ${median(runs.map((r) => r.firstPageS)).toFixed(1)}`);
