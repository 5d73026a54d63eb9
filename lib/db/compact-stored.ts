import { compactInputs } from "@/lib/ingest/inputs";
import type { Db } from "./client";
import type { Prisma } from "./generated/client";
import { withFullInputs } from "./sessions";
import { withFullStepInputs } from "./replays";

/**
 * Rows stored before model inputs were stored once (whole, no digest) are put
 * in the compact form at start, one session or replay per transaction, so a
 * crash halfway leaves every run either as it was or done. Idempotent: a run
 * is picked while one of its model calls with an input has no digest, and the
 * rewrite computes the same form from the full inputs whatever form they had.
 */
export async function compactStoredInputs(prisma: Db): Promise<{ sessions: number; replays: number }> {
  let sessions = 0;
  let replays = 0;
  for (;;) {
    const ids = await prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT "sessionId" AS id FROM "Event"
      WHERE kind = 'model_call' AND "inputDigest" IS NULL AND input IS NOT NULL AND input <> 'null'::jsonb LIMIT 50`;
    if (ids.length === 0) break;
    for (const { id } of ids) {
      await prisma.$transaction(
        async (tx) => {
          const rows = withFullInputs(await tx.event.findMany({ where: { sessionId: id }, orderBy: { seq: "asc" } }));
          const compact = compactInputs(rows);
          for (const [i, row] of rows.entries()) {
            const c = compact[i]!;
            if (row.kind !== "model_call" || c.digest === null) continue;
            await tx.event.update({
              where: { id: row.id },
              data: {
                input: c.input as Prisma.InputJsonValue,
                inputPrefixSeq: c.prefix?.seq ?? null,
                inputPrefixCount: c.prefix?.count ?? null,
                inputDigest: c.digest,
              },
            });
          }
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
      sessions++;
    }
  }
  for (;;) {
    const ids = await prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT "replayId" AS id FROM "ReplayStep"
      WHERE kind = 'model_call' AND "inputDigest" IS NULL AND input IS NOT NULL AND input <> 'null'::jsonb LIMIT 50`;
    if (ids.length === 0) break;
    for (const { id } of ids) {
      await prisma.$transaction(
        async (tx) => {
          const rows = withFullStepInputs(
            await tx.replayStep.findMany({ where: { replayId: id }, orderBy: { idx: "asc" } }),
          );
          const compact = compactInputs(rows.map((r) => ({ seq: r.idx, kind: r.kind, input: r.input })));
          for (const [i, row] of rows.entries()) {
            const c = compact[i]!;
            if (row.kind !== "model_call" || c.digest === null) continue;
            await tx.replayStep.update({
              where: { id: row.id },
              data: {
                input: c.input as Prisma.InputJsonValue,
                inputPrefixIdx: c.prefix?.seq ?? null,
                inputPrefixCount: c.prefix?.count ?? null,
                inputDigest: c.digest,
              },
            });
          }
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
      replays++;
    }
  }
  return { sessions, replays };
}
