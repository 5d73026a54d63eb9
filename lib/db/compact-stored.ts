import { compactInputs, type CompactInput } from "@/lib/sessions/inputs";
import type { Db, DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { withFullInputs } from "./session-reads";
import { withFullStepInputs } from "./replay-steps";

/**
 * Rows stored before model inputs were stored once (whole, no digest) are put
 * in the compact form at start, one session or replay per transaction, so a
 * crash halfway leaves every run either as it was or done. Idempotent: a run
 * is picked while one of its model calls with an input has no digest, and the
 * rewrite computes the same form from the full inputs whatever form they had.
 */
export async function compactStoredInputs(prisma: Db): Promise<{ sessions: number; replays: number }> {
  const sessions = await compactEachRun(prisma, {
    pending: () => prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT "sessionId" AS id FROM "Event"
      WHERE kind = 'model_call' AND "inputDigest" IS NULL AND input IS NOT NULL AND input <> 'null'::jsonb LIMIT 50`,
    load: async (tx, id) =>
      withFullInputs(await tx.event.findMany({ where: { sessionId: id }, orderBy: { seq: "asc" } })),
    write: (tx, rowId, c) =>
      tx.event.update({
        where: { id: rowId },
        data: { ...compactColumns(c), inputPrefixSeq: c.prefix?.seq ?? null },
      }),
  });
  const replays = await compactEachRun(prisma, {
    pending: () => prisma.$queryRaw<{ id: string }[]>`
      SELECT DISTINCT "replayId" AS id FROM "ReplayStep"
      WHERE kind = 'model_call' AND "inputDigest" IS NULL AND input IS NOT NULL AND input <> 'null'::jsonb LIMIT 50`,
    load: async (tx, id) =>
      withFullStepInputs(await tx.replayStep.findMany({ where: { replayId: id }, orderBy: { idx: "asc" } })).map(
        (r) => ({ id: r.id, seq: r.idx, kind: r.kind, input: r.input }),
      ),
    write: (tx, rowId, c) =>
      tx.replayStep.update({
        where: { id: rowId },
        data: { ...compactColumns(c), inputPrefixIdx: c.prefix?.seq ?? null },
      }),
  });
  return { sessions, replays };
}

/** The columns an event and a replay step share for a compacted model input (each names its prefix pointer its own way). */
const compactColumns = (c: CompactInput) => ({
  input: c.input as Prisma.InputJsonValue,
  inputPrefixCount: c.prefix?.count ?? null,
  inputDigest: c.digest,
});

/** A kind of run whose model inputs may still be stored whole: sessions' events or replays' steps. */
interface StoredRuns {
  /** Up to 50 runs with a model call stored whole. */
  pending: () => Promise<{ id: string }[]>;
  /** The run's rows in order, with full inputs. */
  load: (tx: DbClient, runId: string) => Promise<{ id: string; seq: number; kind: string; input: unknown }[]>;
  /** Stores one model call's input in the compact form. */
  write: (tx: DbClient, rowId: string, compact: CompactInput) => Promise<unknown>;
}

/** Rewrites every pending run, one per transaction; returns how many. */
async function compactEachRun(prisma: Db, runs: StoredRuns): Promise<number> {
  let done = 0;
  for (let ids = await runs.pending(); ids.length > 0; ids = await runs.pending()) {
    for (const { id } of ids) {
      await prisma.$transaction(
        async (tx) => {
          const rows = await runs.load(tx, id);
          const compact = compactInputs(rows);
          for (const [i, row] of rows.entries()) {
            const c = compact[i]!;
            if (row.kind === "model_call" && c.digest !== null) await runs.write(tx, row.id, c);
          }
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
      done++;
    }
  }
  return done;
}
