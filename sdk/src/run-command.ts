/**
 * Runs the agent's command under a replay: its output streams through while the last line of stdout and
 * the tail of stderr are kept, and the outcome says how the replay ends.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";

export interface CommandOutcome {
  /** The command's exit code (128 + the signal's number when a signal ended it; 127 when it could not start). */
  code: number;
  /** The last non-empty line the command wrote to stdout. */
  lastLine: string;
  /** The last few KB of stderr. */
  stderrTail: string;
  /** Set when the command could not be started at all. */
  spawnError?: string;
}

const TAIL_BYTES = 4096;
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

export function runCommand(command: readonly string[], env: NodeJS.ProcessEnv): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ["inherit", "pipe", "pipe"], env });
    let stdoutTail = "";
    let stderrTail = "";
    child.stdout.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      stdoutTail = (stdoutTail + chunk.toString("utf8")).slice(-TAIL_BYTES * 4);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-TAIL_BYTES);
    });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward("SIGINT");
    const onTerm = forward("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    let spawnError: string | undefined;
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError =
        error.code === "ENOENT"
          ? `command not found: ${command[0]}`
          : `could not start ${command[0]}: ${error.message}`;
    });
    child.on("close", (code, signal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      const lines = stdoutTail.split(/\r?\n/).filter((l) => l.trim() !== "");
      resolve({
        code: spawnError ? 127 : (code ?? 128 + (SIGNALS[signal ?? ""] ?? 1)),
        lastLine: lines.at(-1) ?? "",
        stderrTail: stderrTail.trim(),
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}

/** What the command wrote to BRANCHPOINT_FINAL_OUTPUT_FILE: JSON when it parses as JSON, else the text; null when nothing. */
export async function readFinalOutputFile(file: string): Promise<unknown> {
  const text = await readFile(file, "utf8").catch(() => "");
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.replace(/\r?\n$/, "");
  }
}

/** The replay's finish body for a command's outcome. */
export async function finishBody(
  outcome: CommandOutcome,
  finalOutputFile: string,
): Promise<{ finalOutput: unknown } | { error: { type: string; message: string } }> {
  if (outcome.code !== 0) {
    const why = outcome.spawnError ?? `the agent's command exited with code ${outcome.code}`;
    const tail = outcome.stderrTail ? `; stderr ends: ${outcome.stderrTail.slice(-1000)}` : "";
    return { error: { type: "exit_code", message: `${why}${tail}` } };
  }
  const fromFile = await readFinalOutputFile(finalOutputFile);
  return { finalOutput: fromFile ?? outcome.lastLine };
}
