// Starts the production server for the e2e suite on a fresh embedded database
// in a temporary folder (demo data loaded, an admin account made from
// BRANCHPOINT_ADMIN_EMAIL/PASSWORD), and removes the folder on exit.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const port = process.argv[2] ?? "3100";
const dir = mkdtempSync(path.join(tmpdir(), "branchpoint-e2e-"));
const child = spawn(
  process.execPath,
  // As scripts/start.sh: our server around Next's handler (client addresses from the socket, 65 s keep-alive).
  [path.join("scripts", "server.mjs")],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: port,
      BRANCHPOINT_DATA_DIR: dir,
      BRANCHPOINT_API_KEY: process.env.BRANCHPOINT_API_KEY ?? "e2e-test-key-0123456789",
      // The first admin, made at start; e2e/global-setup.ts signs in as them. E2E_FIRST_RUN=1 leaves
      // it out, so the server prints its one-time setup link instead (e2e/first-run-sso.spec.ts).
      ...(process.env.E2E_FIRST_RUN === "1"
        ? {}
        : { BRANCHPOINT_ADMIN_EMAIL: "admin@e2e.test", BRANCHPOINT_ADMIN_PASSWORD: "e2e-admin-password" }),
      BRANCHPOINT_PUBLIC_URL: `http://127.0.0.1:${port}`,
      NEXT_TELEMETRY_DISABLED: "1",
      BRANCHPOINT_MODEL_KEY_VARS: "LOCAL_MODEL_KEY",
      // E2E_DATABASE_URL runs the suite on a PostgreSQL server instead of the embedded database.
      DATABASE_URL: process.env.E2E_DATABASE_URL ?? "",
    },
  },
);
const stop = () => {
  child.kill("SIGTERM");
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
child.on("exit", (code) => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
