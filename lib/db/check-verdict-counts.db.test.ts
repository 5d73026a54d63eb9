import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbClient } from "./client";
import { checkPassCounts, writeVerdicts, type VerdictOutcome } from "./online-checks";
import { MIGRATIONS_DIR } from "./schema-engine";
import { prismaSql } from "./sql";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

// The per-check regressions read from the verdict counts the database keeps equals the same counts worked out
// from every stored verdict (the read it replaced, kept here as the oracle) after any sequence of session inserts
// and deletes, verdicts written, judged again (several in one statement) and deleted, start time moves, supersedes
// and version moves of sessions; and the migration's backfill gives the same counts from stored rows.

/** The read before the kept counts: every pass and fail verdict of the agent grouped. */
async function checkPassCountsByScan(client: DbClient, agentId: string) {
  const byVersion = await client.$queryRaw<
    {
      checkId: string;
      name: string;
      agentVersionId: string;
      version: string;
      firstSeen: Date;
      passed: bigint;
      failed: bigint;
    }[]
  >`
    SELECT v."checkId", c.name, v."agentVersionId", av.version,
      min(coalesce(s."startedAt", s."createdAt")) AS "firstSeen",
      count(*) FILTER (WHERE v.outcome = 'pass') AS passed, count(*) FILTER (WHERE v.outcome = 'fail') AS failed
    FROM "SessionCheckVerdict" v
    JOIN "Check" c ON c.id = v."checkId"
    JOIN "AgentVersion" av ON av.id = v."agentVersionId"
    JOIN "Session" s ON s.id = v."sessionId"
    WHERE v."agentId" = ${agentId} AND v.outcome IN ('pass', 'fail')
    GROUP BY 1, 2, 3, 4 ORDER BY 2, 5, 4`;
  const byDay = await client.$queryRaw<{ checkId: string; day: string; passed: bigint; failed: bigint }[]>`
    SELECT v."checkId", to_char((coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
      count(*) FILTER (WHERE v.outcome = 'pass') AS passed, count(*) FILTER (WHERE v.outcome = 'fail') AS failed
    FROM "SessionCheckVerdict" v JOIN "Session" s ON s.id = v."sessionId"
    WHERE v."agentId" = ${agentId} AND v.outcome IN ('pass', 'fail')
    GROUP BY 1, 2 ORDER BY 2, 1`;
  return {
    byVersion: byVersion.map((r) => ({ ...r, passed: Number(r.passed), failed: Number(r.failed) })),
    byDay: byDay.map((r) => ({ ...r, passed: Number(r.passed), failed: Number(r.failed) })),
  };
}

/** Both reads in one comparable form (first seen as instants). */
async function both(client: DbClient, agentId: string) {
  const norm = (c: Awaited<ReturnType<typeof checkPassCounts>>) => ({
    byVersion: c.byVersion.map((v) => ({ ...v, firstSeen: new Date(v.firstSeen).toISOString() })),
    byDay: c.byDay,
  });
  return {
    kept: norm(await checkPassCounts(client, agentId)),
    scanned: norm(await checkPassCountsByScan(client, agentId)),
  };
}

const OUTCOMES: VerdictOutcome[] = ["pass", "fail", "check_error", "over_budget"];

type Op =
  | { op: "insert"; agent: number; version: number; day: number | null; minute: number; copies: number }
  | { op: "judge"; verdicts: { pick: number; check: number; version: number; outcome: number }[] }
  | { op: "unjudge"; pick: number; check: number }
  | { op: "delete"; pick: number }
  | { op: "start"; pick: number; day: number | null; minute: number }
  | { op: "supersede"; pick: number }
  | { op: "version"; pick: number; version: number };

const pick = fc.nat(1000);
const day = fc.option(fc.integer({ min: 0, max: 3 }), { freq: 4 });
const minute = fc.integer({ min: 0, max: 1439 });
const verdict = fc.record({ pick, check: fc.nat(1), version: fc.nat(1), outcome: fc.nat(OUTCOMES.length - 1) });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      agent: fc.nat(1),
      version: fc.nat(1),
      day,
      minute,
      copies: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("judge" as const),
      verdicts: fc.array(verdict, { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unjudge" as const), pick, check: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("start" as const), pick, day, minute }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("supersede" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("version" as const), pick, version: fc.nat(1) }) },
);

const at = (d: number | null, minute: number) =>
  d === null ? null : new Date(Date.UTC(2026, 2, 1 + d, 0, minute, 0, minute % 1000));

const counts = { eventCount: 0, modelCallCount: 0, toolCallCount: 0, errorCount: 0 };

describe.each(TEST_ENGINES)("check verdict counts kept by the database (%s)", (engine) => {
  let db: TestDatabase;
  let run = 0;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Two agents of two versions, and two checks, named apart for each property run. */
  async function fleet() {
    run += 1;
    const agents = [];
    for (const a of [0, 1]) {
      const agent = await db.prisma.agent.create({ data: { name: `vc-${run}-${a}`, adapter: "generic" } });
      const versions = [];
      for (const v of ["1", "2"])
        versions.push(
          (await db.prisma.agentVersion.create({ data: { agentId: agent.id, version: v, capabilities: [] } })).id,
        );
      agents.push({ id: agent.id, versions });
    }
    const checks = [];
    for (const c of [0, 1])
      checks.push(
        (
          await db.prisma.check.create({
            data: { name: `vc-${run}-check-${c}`, definition: {}, createdBy: "test" },
          })
        ).id,
      );
    return { agents, checks };
  }

  async function apply(f: Awaited<ReturnType<typeof fleet>>, ops: Op[]) {
    const sessions: { id: string; agent: number }[] = [];
    const live = (i: number) => (sessions.length === 0 ? null : sessions[i % sessions.length]!);
    let n = 0;
    for (const o of ops) {
      if (o.op === "insert") {
        const a = f.agents[o.agent]!;
        const made = await db.prisma.session.createManyAndReturn({
          data: Array.from({ length: o.copies }, (_, k) => {
            n += 1;
            return {
              agentId: a.id,
              agentVersionId: a.versions[(o.version + k) % 2]!,
              externalId: `vc-${run}-${n}`,
              format: "native",
              status: "completed",
              ...counts,
              startedAt: at(o.day === null ? null : (o.day + k) % 4, (o.minute + 97 * k) % 1440),
              createdAt: at(o.minute % 4, o.minute)!,
            };
          }),
          select: { id: true },
        });
        for (const s of made) sessions.push({ id: s.id, agent: o.agent });
        continue;
      }
      if (o.op === "judge") {
        // One statement for all of them, as a judging job writes its window (a pair written twice keeps the last).
        const byKey = new Map<string, Parameters<typeof writeVerdicts>[1][number]>();
        for (const v of o.verdicts) {
          const s = live(v.pick);
          if (s === null) continue;
          const a = f.agents[s.agent]!;
          byKey.set(`${s.id} ${v.check}`, {
            sessionId: s.id,
            checkId: f.checks[v.check]!,
            agentId: a.id,
            agentVersionId: a.versions[v.version]!,
            outcome: OUTCOMES[v.outcome]!,
            reason: "r",
            judge: null,
            costUsd: 0,
            eventCount: 0,
          });
        }
        await db.prisma.$transaction((tx) => writeVerdicts(prismaSql(tx), [...byKey.values()]));
        continue;
      }
      const s = live(o.pick);
      if (s === null) continue;
      const id = s.id;
      switch (o.op) {
        case "unjudge":
          await db.prisma.sessionCheckVerdict.deleteMany({ where: { sessionId: id, checkId: f.checks[o.check]! } });
          break;
        case "delete":
          await db.prisma.session.delete({ where: { id } });
          sessions.splice(sessions.indexOf(s), 1);
          break;
        case "start":
          await db.prisma.session.update({ where: { id }, data: { startedAt: at(o.day, o.minute) } });
          break;
        case "supersede":
          await db.prisma
            .$executeRaw`UPDATE "Session" SET metadata = metadata || '{"supersededBy": "elsewhere"}'::jsonb WHERE id = ${id}`;
          break;
        case "version":
          await db.prisma.session.update({
            where: { id },
            data: { agentVersionId: f.agents[s.agent]!.versions[o.version]! },
          });
          break;
      }
    }
  }

  it("equals the counts of every verdict after a mixed sequence of changes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const f = await fleet();
        await apply(f, ops);
        for (const a of f.agents) {
          const { kept, scanned } = await both(db.prisma, a.id);
          expect(kept).toEqual(scanned);
        }
      }),
      { numRuns: engine === "pglite" ? 25 : 40, seed: engine === "pglite" ? 28 : 29 },
    );
  });

  it("counts a day's first verdict leaving with its session, a check's deletion and its agent's", async () => {
    const f = await fleet();
    const [a] = f.agents;
    await apply(f, [
      { op: "insert", agent: 0, version: 0, day: 1, minute: 60, copies: 1 },
      { op: "insert", agent: 0, version: 0, day: 1, minute: 300, copies: 1 },
      {
        op: "judge",
        verdicts: [
          { pick: 0, check: 0, version: 0, outcome: 1 },
          { pick: 1, check: 0, version: 0, outcome: 0 },
          { pick: 1, check: 1, version: 0, outcome: 0 },
        ],
      },
    ]);
    const first = await checkPassCounts(db.prisma, a!.id);
    expect(first.byDay).toEqual([
      { checkId: f.checks[0], day: "2026-03-02", passed: 1, failed: 1 },
      { checkId: f.checks[1], day: "2026-03-02", passed: 1, failed: 0 },
    ]);
    const sessions = await db.prisma.session.findMany({ where: { agentId: a!.id }, orderBy: { startedAt: "asc" } });
    await db.prisma.session.delete({ where: { id: sessions[0]!.id } });
    const after = await checkPassCounts(db.prisma, a!.id);
    expect(after.byVersion.map((v) => [v.checkId, new Date(v.firstSeen).toISOString(), v.passed, v.failed])).toEqual([
      [f.checks[0], "2026-03-02T05:00:00.300Z", 1, 0],
      [f.checks[1], "2026-03-02T05:00:00.300Z", 1, 0],
    ]);
    await db.prisma.check.delete({ where: { id: f.checks[1]! } });
    expect((await checkPassCounts(db.prisma, a!.id)).byDay).toEqual([
      { checkId: f.checks[0], day: "2026-03-02", passed: 1, failed: 0 },
    ]);
    expect(await db.prisma.checkVerdictCount.count({ where: { checkId: f.checks[1]!, passed: { gt: 0 } } })).toBe(0);
    await db.prisma.agent.delete({ where: { id: a!.id } });
    expect(
      await db.prisma.checkVerdictCount.count({
        where: { agentId: a!.id, OR: [{ passed: { gt: 0 } }, { failed: { gt: 0 } }] },
      }),
    ).toBe(0);
  });

  it("the migration's backfill gives the counts the triggers kept", async () => {
    const f = await fleet();
    await apply(f, [
      { op: "insert", agent: 0, version: 0, day: 0, minute: 10, copies: 2 },
      { op: "insert", agent: 0, version: 1, day: null, minute: 20, copies: 1 },
      { op: "insert", agent: 1, version: 0, day: 1, minute: 40, copies: 2 },
      {
        op: "judge",
        verdicts: [
          { pick: 0, check: 0, version: 0, outcome: 0 },
          { pick: 1, check: 0, version: 1, outcome: 1 },
          { pick: 2, check: 1, version: 1, outcome: 1 },
          { pick: 3, check: 0, version: 0, outcome: 2 },
          { pick: 4, check: 1, version: 0, outcome: 0 },
        ],
      },
      { op: "start", pick: 1, day: 3, minute: 5 },
      { op: "judge", verdicts: [{ pick: 0, check: 0, version: 0, outcome: 1 }] },
    ]);
    const live = `SELECT * FROM "CheckVerdictCount" WHERE passed + failed > 0 ORDER BY 1, 2, 3, 4`;
    const before = await db.prisma.$queryRawUnsafe(live);
    const sql = readFileSync(path.join(MIGRATIONS_DIR, "20261204040000_check_verdict_counts", "migration.sql"), "utf8");
    const backfill = sql.slice(sql.indexOf("-- The counts of the verdicts stored before."));
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`DELETE FROM "CheckVerdictCount"`;
      for (const statement of backfill.split(";").filter((s) => s.trim() !== "")) await tx.$executeRawUnsafe(statement);
    });
    expect(await db.prisma.$queryRawUnsafe(live)).toEqual(before);
  });
});
