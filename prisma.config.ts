import { defineConfig } from "prisma/config";

// No datasource URL: the app connects through driver adapters (lib/db/client.ts),
// and migrations run through scripts/db.ts over the WASM schema engine.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
