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
          fileParallelism: false,
          // One process for every file, in turn: a fresh one per file spent 1 to 2 s of each file loading the same
          // modules again (70 files). The files share no state they do not set up themselves (each opens its own
          // databases); one that must have a fresh module graph says so with vi.resetModules().
          isolate: false,
        },
      },
    ],
  },
});
