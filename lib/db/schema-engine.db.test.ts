import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { describe, expect, it } from "vitest";
import { openSchemaEngine, pendingSchemaChange } from "./schema-engine";

describe("the committed migrations", () => {
  it("give the database prisma/schema.prisma describes: `npm run db:migrate:create` has nothing to write", async () => {
    const pglite = await PGlite.create();
    const engine = await openSchemaEngine(new PrismaPGlite(pglite));
    try {
      // The generated digest columns included: their expressions are the schema's dbgenerated defaults.
      expect(await pendingSchemaChange(engine)).toBe("");
    } finally {
      engine.free();
      await pglite.close();
    }
  }, 120_000);
});
