/**
 * The production server the page benches measure: `next start` on 127.0.0.1
 * over the embedded database in a folder the bench filled (or a PostgreSQL
 * database it filled), without the demo data. Never used by the app.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export interface BenchServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Stops the server and waits for it to exit (its database folder can then be removed). */
  stop(): Promise<void>;
}

async function waitForServer(url: string, timeoutMs: number, exitCode: () => number | null | undefined) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const code = exitCode();
    if (code !== undefined)
      throw new Error(`the server exited (code ${code}) before ${url} answered: see its output above`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Starts `next start` (the build in NEXT_DIST_DIR, else .next) and resolves once `/api/health` answers. */
export async function startServer(opts: {
  port: number;
  /** BRANCHPOINT_DATA_DIR: the embedded database the bench stored its sessions in. */
  dataDir?: string;
  /** DATABASE_URL: a PostgreSQL database the bench filled (instead of an embedded one). */
  databaseUrl?: string;
  /** The admin the server makes at start: pages are for signed-in users. */
  admin?: { email: string; password: string };
  timeoutMs?: number;
}): Promise<BenchServer> {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(dist, "BUILD_ID")))
    throw new Error(`no production build in ${dist}/: run \`npx next build\` (or set NEXT_DIST_DIR) first`);
  const child = spawn(
    process.execPath,
    [path.join("node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1", "-p", String(opts.port)],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        ...(opts.dataDir !== undefined ? { BRANCHPOINT_DATA_DIR: opts.dataDir } : {}),
        BRANCHPOINT_DEMO_DATA: "off",
        ...(opts.admin
          ? { BRANCHPOINT_ADMIN_EMAIL: opts.admin.email, BRANCHPOINT_ADMIN_PASSWORD: opts.admin.password }
          : {}),
        BRANCHPOINT_PUBLIC_URL: `http://127.0.0.1:${opts.port}`,
        NEXT_TELEMETRY_DISABLED: "1",
        DATABASE_URL: opts.databaseUrl ?? "",
      },
    },
  );
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolve();
    }),
  );
  const stop = async () => {
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  };
  const base = `http://127.0.0.1:${opts.port}`;
  try {
    await waitForServer(`${base}/api/health`, opts.timeoutMs ?? 180_000, () => exitCode);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop };
}
