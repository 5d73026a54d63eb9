/**
 * A session imported from Langfuse is as complete as a native one: replayed as a branch under the recorded
 * policy it reproduces its run exactly, and with the failing tool answered from history it fails the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveImportedSessions } from "@/lib/db/session-save";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { importDocument } from "@/lib/ingest";
import { supportTrace } from "@/lib/ingest/__fixtures__/langfuse";
import { HISTORY, RECORDED, startReplay } from "../testing";

describe.each(TEST_ENGINES)("a Langfuse session replayed on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    const result = importDocument(JSON.stringify(supportTrace("replayed")));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    sessionId = (await saveImportedSessions(db.prisma, result.sessions))[0]!.id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("reproduces its run exactly under the recorded policy, failed tool call included", async () => {
    for (const policy of [RECORDED, HISTORY]) {
      const { id } = await startReplay(db.prisma, { sessionId, policy });
      const replay = await db.prisma.replay.findUniqueOrThrow({
        where: { id },
        select: { status: true, comparability: true },
      });
      expect(replay).toEqual({ status: "completed", comparability: "exact" });
    }
  });
});
