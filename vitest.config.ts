import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "sdk/src/**/*.test.ts"],
          exclude: ["**/*.db.test.ts", "node_modules/**", "sdk/dist/**"],
          environment: "node",
          // The files share one process, in turn: loading the modules again for each of about 100 files was two
          // thirds of the project's time (58 s and 69 CPU-s isolated, 21 s and 27 CPU-s so, at load 3 to 5).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "db",
          include: ["**/*.db.test.ts"],
          globalSetup: ["lib/db/testing-template.ts"],
          exclude: ["node_modules/**"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Two processes, each taking the files in turn: a fresh one per file spent 1 to 2 s of each file loading the
          // same modules again (70 files). The files share no state they do not set up themselves (each opens its own
          // databases, servers on port 0, temporary folders); one that must have a fresh module graph says so with
          // vi.resetModules(). Two at once because the PostgreSQL files wait on the server and the suite's processes
          // kept the two cores 61% busy with one.
          fileParallelism: true,
          maxWorkers: 2,
          isolate: false,
        },
      },
    ],
  },
});
