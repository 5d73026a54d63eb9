import type { ReplayStep } from "@/lib/replay";
import type { DbClient } from "./client";
import type { RawSql } from "./sql";
import { Prisma } from "./generated/client";

// ---------------------------------------------------------------------------
// A replay read a window at a time, for pages that must open a 10,000-step
// branch at once: counts from columns, a range of steps by idx without the
// models' inputs, and the few steps a panel names. Each read costs what it
// returns, never the branch.
// ---------------------------------------------------------------------------

/** What identifies a replay's steps and its base as they are now, with their counts; null when there is no such replay. */
export async function replayStamp(client: DbClient, replayId: string) {
  if (!replayId) return null;
  // One statement (a run's save and every page read ask for it): the replay's row joined with its base's count.
  const [row] = await client.$queryRaw<
    {
      status: string;
      updatedAt: Date;
      stepCount: number;
      stepsVersion: number;
      sessionId: string;
      eventCount: number;
    }[]
  >`
    SELECT r.status, r."updatedAt", r."stepCount", r."stepsVersion", r."sessionId", s."eventCount"
      FROM "Replay" r JOIN "Session" s ON s.id = r."sessionId"
     WHERE r.id = ${replayId}`;
  if (!row) return null;
  const updatedAt = new Date(row.updatedAt);
  return {
    status: row.status,
    stepCount: row.stepCount,
    sessionId: row.sessionId,
    baseCount: row.eventCount,
    /** Changes whenever the replay's row is written (its steps are stored with it) or its base is re-imported. */
    key: `${updatedAt.toISOString()}:${row.stepCount}:${row.status}:${row.eventCount}`,
    /**
     * Changes only when a run's result replaces the steps or the base is re-imported, not with the
     * row's other writes (a running replay's progress every half second, a cancel request, a claim).
     */
    stepsKey: `${row.stepsVersion}:${row.stepCount}:${row.eventCount}`,
  };
}

export type StepWindowRow = Pick<
  ReplayStep,
  "seq" | "kind" | "name" | "status" | "source" | "baseSeq" | "equalsBase" | "input" | "output" | "error"
> & { inputDrift?: string[] };

/**
 * The steps with idx in [from, to), in order, without a model call's input
 * (the prompt: most of a branch's bytes); a tool call's input (its arguments)
 * is read.
 */
export async function replayStepWindow(
  client: DbClient,
  replayId: string,
  from: number,
  to: number,
): Promise<StepWindowRow[]> {
  const range = { replayId, idx: { gte: from, lt: to } };
  const [rows, inputs] = await Promise.all([
    client.replayStep.findMany({
      where: range,
      orderBy: { idx: "asc" },
      select: {
        idx: true,
        kind: true,
        name: true,
        status: true,
        source: true,
        baseSeq: true,
        output: true,
        error: true,
        detail: true,
      },
    }),
    client.replayStep.findMany({
      where: { ...range, kind: { not: "model_call" } },
      select: { idx: true, input: true },
    }),
  ]);
  const inputOf = new Map(inputs.map((r) => [r.idx, r.input]));
  return rows.map((r) => {
    const detail = (r.detail ?? {}) as { equalsBase?: boolean; inputDrift?: string[] };
    return {
      seq: r.idx,
      kind: r.kind as ReplayStep["kind"],
      name: r.name,
      status: r.status as ReplayStep["status"],
      source: r.source as ReplayStep["source"],
      baseSeq: r.baseSeq,
      equalsBase: detail.equalsBase === true,
      input: inputOf.get(r.idx) ?? null,
      output: r.output ?? null,
      error: (r.error as ReplayStep["error"]) ?? null,
      ...(Array.isArray(detail.inputDrift) ? { inputDrift: detail.inputDrift } : {}),
    };
  });
}

/** The base step each of these branch steps stands for (the steps a probe names). */
export async function stepBaseSeqs(client: DbClient, replayId: string, idxs: readonly number[]) {
  if (idxs.length === 0) return [];
  const rows = await client.replayStep.findMany({
    where: { replayId, idx: { in: [...idxs] } },
    select: { idx: true, baseSeq: true },
    orderBy: { idx: "asc" },
  });
  return rows.map((r) => ({ seq: r.idx, baseSeq: r.baseSeq }));
}

/** Kind and name of these base steps. */
export async function baseStepNames(client: DbClient, sessionId: string, seqs: readonly number[]) {
  if (seqs.length === 0) return [];
  return client.event.findMany({
    where: { sessionId, seq: { in: [...seqs] } },
    select: { seq: true, kind: true, name: true },
    orderBy: { seq: "asc" },
  });
}

/** The branch's recorded tool steps that stand for one of these base steps. */
export async function recordedToolStepsFor(client: DbClient, replayId: string, baseSeqs: readonly number[]) {
  if (baseSeqs.length === 0) return [];
  const rows = await client.replayStep.findMany({
    where: { replayId, kind: "tool_call", source: "recorded", baseSeq: { in: [...baseSeqs] } },
    select: { idx: true, baseSeq: true },
    orderBy: { idx: "asc" },
  });
  return rows.map((r) => ({ seq: r.idx, baseSeq: r.baseSeq! }));
}

/** What a comparison row shows of a step: its content without a model call's input (the prompt). */
export type PlainContent = { seq: number; kind: string; input: unknown; output: unknown; error: unknown };

/**
 * The content of these base events and branch steps (a model call's input
 * left out), keyed by seq and by idx: what a window of comparison rows, or
 * its first divergence's summary, reads of the runs.
 */
export async function plainContents(
  client: RawSql,
  ids: { sessionId: string; replayId: string },
  baseSeqs: readonly number[],
  branchIdxs: readonly number[],
): Promise<{ base: Map<number, PlainContent>; branch: Map<number, PlainContent> }> {
  const read = async (query: Prisma.Sql) => {
    const [row] = await client.$queryRaw<{ rows: string | null }[]>(query);
    const rows = row?.rows ? (JSON.parse(row.rows) as PlainContent[]) : [];
    return new Map(rows.map((r) => [r.seq, r]));
  };
  const fields = (seq: Prisma.Sql) =>
    Prisma.sql`json_agg(json_build_object('seq', ${seq}, 'kind', kind, 'input', CASE WHEN kind = 'model_call' THEN NULL ELSE input END, 'output', output, 'error', error))::text AS rows`;
  const [base, branch] = await Promise.all([
    baseSeqs.length === 0
      ? new Map<number, PlainContent>()
      : read(
          Prisma.sql`SELECT ${fields(Prisma.sql`seq`)} FROM "Event" WHERE "sessionId" = ${ids.sessionId} AND seq IN (${Prisma.join([...new Set(baseSeqs)])})`,
        ),
    branchIdxs.length === 0
      ? new Map<number, PlainContent>()
      : read(
          Prisma.sql`SELECT ${fields(Prisma.sql`idx`)} FROM "ReplayStep" WHERE "replayId" = ${ids.replayId} AND idx IN (${Prisma.join([...new Set(branchIdxs)])})`,
        ),
  ]);
  return { base, branch };
}
