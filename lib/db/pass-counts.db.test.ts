import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mergeClusterRows, passCounts, reclusterSessions } from "./clusters";
import type { DbClient } from "./client";
import { MIGRATIONS_DIR } from "./schema-engine";
import { prismaSql } from "./sql";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

// The regressions read from the counts the database keeps equals the same counts worked out from every session
// (the read it replaced, kept here as the oracle) after any sequence of session inserts and deletes, supersedes
// and their undoing, start time and version moves, status changes reclustered as a save does, member rows added,
// removed and moved, and cluster merges; and the migration's backfill gives the same counts from stored rows.

/** The read before the kept counts: every session of the agent grouped. */
async function passCountsByScan(client: DbClient, agentId: string) {
  const byVersion = await client.$queryRaw<
    { agentVersionId: string; version: string; firstSeen: Date; total: bigint; failed: bigint }[]
  >`
    SELECT s."agentVersionId", v.version, min(coalesce(s."startedAt", s."createdAt")) AS "firstSeen",
      count(*) AS total, count(m."sessionId") AS failed
    FROM "Session" s JOIN "AgentVersion" v ON v.id = s."agentVersionId"
    LEFT JOIN "ClusterMember" m ON m."sessionId" = s.id
    WHERE s."agentId" = ${agentId} AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
    GROUP BY 1, 2 ORDER BY 3, 2`;
  const byDay = await client.$queryRaw<{ agentVersionId: string; day: string; total: bigint; failed: bigint }[]>`
    SELECT s."agentVersionId", to_char((coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
      count(*) AS total, count(m."sessionId") AS failed
    FROM "Session" s LEFT JOIN "ClusterMember" m ON m."sessionId" = s.id
    WHERE s."agentId" = ${agentId} AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
    GROUP BY 1, 2 ORDER BY 2, 1`;
  const byCluster = await client.$queryRaw<{ clusterId: string; agentVersionId: string; sessions: bigint }[]>`
    SELECT m."clusterId", m."agentVersionId", count(*) AS sessions
    FROM "ClusterMember" m JOIN "FailureCluster" c ON c.id = m."clusterId"
    WHERE c."agentId" = ${agentId} GROUP BY 1, 2`;
  return {
    byVersion: byVersion.map((r) => ({ ...r, total: Number(r.total), failed: Number(r.failed) })),
    byDay: byDay.map((r) => ({ ...r, total: Number(r.total), failed: Number(r.failed) })),
    byCluster: byCluster.map((r) => ({ ...r, sessions: Number(r.sessions) })),
  };
}

/** Both reads in one comparable form (the clusters in a fixed order, first seen as instants). */
async function both(client: DbClient, agentId: string) {
  const norm = (c: Awaited<ReturnType<typeof passCounts>>) => ({
    byVersion: c.byVersion.map((v) => ({ ...v, firstSeen: new Date(v.firstSeen).toISOString() })),
    byDay: c.byDay,
    byCluster: [...c.byCluster].sort((a, b) =>
      `${a.clusterId} ${a.agentVersionId}`.localeCompare(`${b.clusterId} ${b.agentVersionId}`),
    ),
  });
  return { kept: norm(await passCounts(client, agentId)), scanned: norm(await passCountsByScan(client, agentId)) };
}

type Op =
  | {
      op: "insert";
      agent: number;
      version: number;
      day: number | null;
      minute: number;
      replay: boolean;
      copies?: number;
    }
  | { op: "delete"; pick: number }
  | { op: "supersede"; pick: number }
  | { op: "unsupersede"; pick: number }
  | { op: "start"; pick: number; day: number | null; minute: number }
  | { op: "version"; pick: number; version: number }
  | { op: "status"; pick: number; failed: boolean }
  | { op: "member"; pick: number; cluster: number }
  | { op: "unmember"; pick: number }
  | { op: "move"; pick: number; cluster: number }
  | { op: "merge"; agent: number; from: number; into: number };

const pick = fc.nat(1000);
const cluster = fc.nat(3);
const day = fc.option(fc.integer({ min: 0, max: 3 }), { freq: 4 });
const minute = fc.integer({ min: 0, max: 1439 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      agent: fc.nat(1),
      version: fc.nat(1),
      day,
      minute,
      replay: fc.boolean(),
      copies: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("supersede" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unsupersede" as const), pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("start" as const), pick, day, minute }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("version" as const), pick, version: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("status" as const), pick, failed: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("member" as const), pick, cluster }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unmember" as const), pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("move" as const), pick, cluster }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("merge" as const), agent: fc.nat(1), from: cluster, into: cluster }),
  },
);

const at = (d: number | null, minute: number) =>
  d === null ? null : new Date(Date.UTC(2026, 2, 1 + d, 0, minute, 0, minute % 1000));

const counts = { eventCount: 0, modelCallCount: 0, toolCallCount: 0, errorCount: 0 };

describe.each(TEST_ENGINES)("pass counts kept by the database (%s)", (engine) => {
  let db: TestDatabase;
  let run = 0;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Two agents of two versions and four clusters each, named apart for each property run. */
  async function fleet() {
    run += 1;
    const agents = [];
    for (const a of [0, 1]) {
      const agent = await db.prisma.agent.create({ data: { name: `pc-${run}-${a}`, adapter: "generic" } });
      const versions = [];
      for (const v of ["1", "2"])
        versions.push(
          (await db.prisma.agentVersion.create({ data: { agentId: agent.id, version: v, capabilities: [] } })).id,
        );
      const clusters = [];
      for (let c = 0; c < 4; c++)
        clusters.push(
          (
            await db.prisma.failureCluster.create({
              data: { agentId: agent.id, signatureHash: `h${c}`, step: "tool:x", errorType: "E", message: `m${c}` },
            })
          ).id,
        );
      agents.push({ id: agent.id, versions, clusters });
    }
    return agents;
  }

  async function apply(agents: Awaited<ReturnType<typeof fleet>>, ops: Op[]) {
    const sessions: { id: string; agent: number }[] = [];
    const live = (i: number) => (sessions.length === 0 ? null : sessions[i % sessions.length]!);
    let n = 0;
    for (const o of ops) {
      if (o.op === "insert") {
        // One statement for all the copies (the count of inserted rows is kept once per statement).
        const a = agents[o.agent]!;
        const made = await db.prisma.session.createManyAndReturn({
          data: Array.from({ length: o.copies ?? 1 }, (_, k) => {
            n += 1;
            return {
              agentId: a.id,
              agentVersionId: a.versions[(o.version + k) % 2]!,
              externalId: `pc-${run}-${n}`,
              format: "native",
              status: "completed",
              ...counts,
              isReplay: o.replay,
              startedAt: at(o.day === null ? null : (o.day + k) % 4, (o.minute + 97 * k) % 1440),
              createdAt: at(o.minute % 4, o.minute)!,
            };
          }),
          select: { id: true },
        });
        for (const s of made) sessions.push({ id: s.id, agent: o.agent });
        continue;
      }
      if (o.op === "merge") {
        const a = agents[o.agent]!;
        if (o.from % a.clusters.length === o.into % a.clusters.length || a.clusters.length < 2) continue;
        const from = a.clusters[o.from % a.clusters.length]!;
        const into = a.clusters[o.into % a.clusters.length]!;
        await db.prisma.$transaction((tx) => mergeClusterRows(tx, into, [from]));
        a.clusters = a.clusters.filter((c) => c !== from);
        continue;
      }
      const s = live(o.pick);
      if (s === null) continue;
      const a = agents[s.agent]!;
      const id = s.id;
      switch (o.op) {
        case "delete":
          await db.prisma.session.delete({ where: { id } });
          sessions.splice(sessions.indexOf(s), 1);
          break;
        case "supersede":
          await db.prisma
            .$executeRaw`UPDATE "Session" SET metadata = metadata || '{"supersededBy": "elsewhere"}'::jsonb WHERE id = ${id}`;
          break;
        case "unsupersede":
          await db.prisma.$executeRaw`UPDATE "Session" SET metadata = metadata - 'supersededBy' WHERE id = ${id}`;
          break;
        case "start":
          await db.prisma.session.update({ where: { id }, data: { startedAt: at(o.day, o.minute) } });
          break;
        case "version":
          await db.prisma.session.update({ where: { id }, data: { agentVersionId: a.versions[o.version]! } });
          break;
        case "status":
          // As a save does: the row, then its membership worked out again in the same transaction.
          await db.prisma.$transaction(async (tx) => {
            await tx.session.update({ where: { id }, data: { status: o.failed ? "failed" : "completed" } });
            await reclusterSessions(prismaSql(tx), [id]);
          });
          break;
        case "member": {
          const row = await db.prisma.session.findUniqueOrThrow({
            where: { id },
            select: { agentVersionId: true, startedAt: true, createdAt: true },
          });
          await db.prisma.clusterMember.upsert({
            where: { sessionId: id },
            create: {
              sessionId: id,
              clusterId: a.clusters[o.cluster % a.clusters.length]!,
              signatureHash: "h",
              agentVersionId: row.agentVersionId,
              seenAt: row.startedAt ?? row.createdAt,
            },
            update: {},
          });
          break;
        }
        case "unmember":
          await db.prisma.clusterMember.deleteMany({ where: { sessionId: id } });
          break;
        case "move":
          await db.prisma.clusterMember.updateMany({
            where: { sessionId: id },
            data: { clusterId: a.clusters[o.cluster % a.clusters.length]! },
          });
          break;
      }
    }
  }

  it("equals the counts of every session after a mixed sequence of changes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const agents = await fleet();
        await apply(agents, ops);
        for (const a of agents) {
          const { kept, scanned } = await both(db.prisma, a.id);
          expect(kept).toEqual(scanned);
        }
      }),
      { numRuns: engine === "pglite" ? 25 : 40, seed: engine === "pglite" ? 28 : 29 },
    );
  });

  it("counts a session deleted with its member row, its agent's deletion, and a day's first session leaving", async () => {
    const [a] = await fleet();
    const mk = async (ext: string, startedAt: Date) =>
      (
        await db.prisma.session.create({
          data: {
            agentId: a!.id,
            agentVersionId: a!.versions[0]!,
            externalId: ext,
            format: "native",
            status: "completed",
            ...counts,
            startedAt,
          },
          select: { id: true },
        })
      ).id;
    const first = await mk(`pc-first-${run}`, new Date("2026-03-02T01:00:00Z"));
    const second = await mk(`pc-second-${run}`, new Date("2026-03-02T05:00:00Z"));
    await db.prisma.clusterMember.create({
      data: {
        sessionId: first,
        clusterId: a!.clusters[0]!,
        signatureHash: "h",
        agentVersionId: a!.versions[0]!,
        seenAt: new Date("2026-03-02T01:00:00Z"),
      },
    });
    expect((await passCounts(db.prisma, a!.id)).byDay).toEqual([
      { agentVersionId: a!.versions[0], day: "2026-03-02", total: 2, failed: 1 },
    ]);
    await db.prisma.session.delete({ where: { id: first } });
    const after = await passCounts(db.prisma, a!.id);
    expect(after.byDay).toEqual([{ agentVersionId: a!.versions[0], day: "2026-03-02", total: 1, failed: 0 }]);
    expect(after.byVersion.map((v) => [new Date(v.firstSeen).toISOString(), v.total, v.failed])).toEqual([
      ["2026-03-02T05:00:00.000Z", 1, 0],
    ]);
    expect(after.byCluster).toEqual([]);
    await db.prisma.session.delete({ where: { id: second } });
    expect(await passCounts(db.prisma, a!.id)).toEqual({ byVersion: [], byDay: [], byCluster: [] });
    const third = await mk(`pc-third-${run}`, new Date("2026-03-03T00:00:00Z"));
    await db.prisma.clusterMember.create({
      data: {
        sessionId: third,
        clusterId: a!.clusters[0]!,
        signatureHash: "h",
        agentVersionId: a!.versions[0]!,
        seenAt: new Date("2026-03-03T00:00:00Z"),
      },
    });
    // Counts changed earlier in the transaction that deletes the agent (their foreign keys checked again then).
    await db.prisma.$transaction(async (tx) => {
      await tx.clusterMember.update({ where: { sessionId: third }, data: { clusterId: a!.clusters[1]! } });
      await tx.session.update({ where: { id: third }, data: { startedAt: new Date("2026-03-03T02:00:00Z") } });
      await tx.agent.delete({ where: { id: a!.id } });
    });
    expect(await db.prisma.agentDayPassCount.count({ where: { agentId: a!.id } })).toBe(0);
    expect(await db.prisma.clusterVersionCount.count({ where: { clusterId: { in: a!.clusters } } })).toBe(0);
  });

  it("the migration's backfill gives the counts the triggers kept", async () => {
    const agents = await fleet();
    await apply(agents, [
      { op: "insert", agent: 0, version: 0, day: 0, minute: 10, replay: false },
      { op: "insert", agent: 0, version: 1, day: null, minute: 20, replay: false },
      { op: "insert", agent: 0, version: 1, day: 2, minute: 30, replay: true },
      { op: "insert", agent: 1, version: 0, day: 1, minute: 40, replay: false },
      { op: "member", pick: 0, cluster: 1 },
      { op: "member", pick: 3, cluster: 2 },
      { op: "status", pick: 1, failed: true },
      { op: "insert", agent: 0, version: 0, day: 0, minute: 50, replay: false },
      { op: "supersede", pick: 4 },
    ]);
    const before = await db.prisma.$queryRaw`SELECT * FROM "AgentDayPassCount" ORDER BY 1, 2, 3`;
    const clustersBefore = await db.prisma
      .$queryRaw`SELECT * FROM "ClusterVersionCount" WHERE sessions > 0 ORDER BY 1, 2`;
    const sql = readFileSync(
      path.join(MIGRATIONS_DIR, "20261204010000_pass_count_aggregates", "migration.sql"),
      "utf8",
    );
    const backfill = sql.slice(sql.indexOf("-- The counts of the rows stored before."));
    await db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`DELETE FROM "AgentDayPassCount"`;
      await tx.$executeRaw`DELETE FROM "ClusterVersionCount"`;
      for (const statement of backfill.split(";").filter((s) => s.trim() !== "")) await tx.$executeRawUnsafe(statement);
    });
    expect(await db.prisma.$queryRaw`SELECT * FROM "AgentDayPassCount" WHERE sessions > 0 ORDER BY 1, 2, 3`).toEqual(
      (before as { sessions: number }[]).filter((r) => r.sessions > 0),
    );
    expect(await db.prisma.$queryRaw`SELECT * FROM "ClusterVersionCount" ORDER BY 1, 2`).toEqual(clustersBefore);
  });
});
