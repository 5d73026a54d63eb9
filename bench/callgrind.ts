/**
 * Instructions counted by valgrind's callgrind, for the figures CPU time on a shared machine cannot
 * settle. On these virtual machines a process's CPU time for the same work moves by half between runs
 * with what the host's other guests do; an instruction count does not. Node runs with V8's
 * `--single-threaded --predictable` (no background compilers or collector threads, garbage collected
 * at the same points every run), so the same program on the same input counts the same to a few parts
 * per million, whatever else the machine is doing (with tsx loading the script, about 0.2%).
 *
 * A region is what a process executed between two marks: the process prints a mark and waits, the
 * parent asks callgrind for a dump (`callgrind_control --dump`), which ends one region and starts the
 * next, and lets it go on. An instruction count is not time (a cache miss costs one instruction), so
 * these figures stand beside the CPU-time ones, they do not replace them.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** V8 made deterministic: no concurrent compilation or collection, the same GC points in every run. */
const DETERMINISTIC_NODE = ["--single-threaded", "--predictable"];

/** Fails with what to install when valgrind is missing (Debian: `apt-get install valgrind`). */
export function requireValgrind(): void {
  const found = spawnSync("valgrind", ["--version"], { encoding: "utf8" });
  if (found.status !== 0)
    throw new Error(
      "valgrind is not installed: `apt-get install valgrind` (Debian) gives valgrind and callgrind_control",
    );
}

/** The command line that runs `node <args>` under callgrind, its dumps written under `dir`. */
export function callgrindCommand(dir: string, nodeArgs: string[]): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    `--callgrind-out-file=${join(dir, "callgrind.out.%p")}`,
    // V8 writes the code it compiles: the check that sees it is needed for every non-file mapping.
    "--smc-check=all-non-file",
    process.execPath,
    ...DETERMINISTIC_NODE,
    ...nodeArgs,
  ];
}

/**
 * Ends the region a process under callgrind is in: its instructions since the last dump (or its
 * start), read from the dump callgrind writes. Waits for the dump: callgrind_control returns once it is
 * written.
 */
export function dumpRegion(dir: string, pid: number, label: string): number {
  execFileSync("callgrind_control", [`--dump=${label}`, String(pid)], { stdio: "ignore" });
  const trigger = `desc: Trigger: dump ${label}`;
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`callgrind.out.${pid}.`))) {
    const text = readFileSync(join(dir, file), "utf8");
    if (!text.includes(`${trigger}\n`)) continue;
    const totals = /^totals: (\d+)/m.exec(text);
    if (!totals) throw new Error(`callgrind's dump ${file} has no totals line`);
    return Number(totals[1]);
  }
  throw new Error(`callgrind wrote no dump named ${label} for process ${pid} in ${dir}`);
}

let stdinLines: AsyncIterator<string> | null = null;

/** The child's side: ends the current region named `name`, and waits until the parent has counted it. */
export async function mark(name: string): Promise<void> {
  if (!/^[\w-]+$/.test(name)) throw new Error(`a region's name is letters, digits, - and _: ${JSON.stringify(name)}`);
  process.stdout.write(`REGION ${name}\n`);
  stdinLines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  await stdinLines.next();
}

/**
 * Runs a TypeScript script under callgrind (`node --import tsx <script> <args>`) and answers the
 * instructions of each region it marks, by name, in order. The script's other output goes to stderr.
 */
export async function countRegions(script: string, args: string[] = []): Promise<Map<string, number>> {
  requireValgrind();
  const dir = mkdtempSync(join(tmpdir(), "callgrind-"));
  try {
    const [command, ...rest] = callgrindCommand(dir, ["--import", "tsx", script, ...args]);
    const child = spawn(command!, rest, { stdio: ["pipe", "pipe", "pipe"] });
    let log = "";
    child.stderr.on("data", (c: Buffer) => (log += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const regions = new Map<string, number>();
    for await (const line of createInterface({ input: child.stdout })) {
      if (!line.startsWith("REGION ")) {
        process.stderr.write(`${line}\n`);
        continue;
      }
      const name = line.slice("REGION ".length);
      regions.set(name, dumpRegion(dir, child.pid!, name));
      child.stdin.write("go\n");
    }
    const code = await exited;
    if (code !== 0) throw new Error(`${script} under callgrind exited with ${code}:\n${log.slice(-4000)}`);
    return regions;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
