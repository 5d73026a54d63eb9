import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** True when the module at `moduleUrl` (its `import.meta.url`) is the program run, also through npm's bin symlink. */
export function isMain(moduleUrl: string): boolean {
  try {
    return moduleUrl === pathToFileURL(realpathSync(process.argv[1] ?? "")).href;
  } catch {
    return false;
  }
}
