import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * PGlite does not lock its folder, and two processes writing one folder
 * corrupt it. We hold a lock file with our pid for as long as the process
 * lives; a second process is refused with a message that names the holder.
 */
export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

type LockInfo = { pid: number; startedAt: string; command: string };

export function acquireDataDirLock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "branchpoint.lock");
  const mine: LockInfo = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    command: process.argv.slice(1).join(" "),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: "wx" });
      const release = () => {
        try {
          const held = JSON.parse(readFileSync(file, "utf8")) as LockInfo;
          if (held.pid === process.pid) rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let held: LockInfo | undefined;
      try {
        held = JSON.parse(readFileSync(file, "utf8")) as LockInfo;
      } catch {
        held = undefined;
      }
      if (held && held.pid === process.pid) return () => undefined;
      if (held && isAlive(held.pid)) {
        throw new DataDirLockedError(
          `The data folder ${dir} is in use by process ${held.pid} (${held.command || "unknown command"}, since ${held.startedAt}). ` +
            `Stop that process, or point this one at another folder with BRANCHPOINT_DATA_DIR.`,
        );
      }
      // The holder is gone: the lock is stale. Remove it and try once more.
      rmSync(file, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not take the lock on ${dir}.`);
}
