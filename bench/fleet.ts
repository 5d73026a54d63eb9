/**
 * Failures across runs at scale, on PostgreSQL (127.0.0.1:5432, databases of its own, dropped at the end).
 *
 * 1. Signature and cluster assignment as a share of a session's import: a cohort of failing sessions imported
 *    as the API does (`importAndSave`, 100 a document), then, on the same database with its clusters emptied,
 *    the clustering work of that import done again alone: each session's signature (mask + hash) and the
 *    cluster statements of `writeClusterAssignments`, per window of 100 in a transaction, as the save runs them.
 * 2. `GET /api/v1/clusters` and `GET /api/v1/regressions` for an agent with 10,000 and then 100,000 sessions
 *    (generated rows: five versions over a year, three in ten failed in one of 20 clusters): the work up to the
 *    answer's first byte (the operation the route calls and its JSON; the route sends it whole), in this process;
 *    and the clusters page (`/failures?agent=…`) over HTTP: a real request, signed in, to `next start` on the same
 *    database (the build in NEXT_DIST_DIR, else .next; `--port`, default 3132), its first byte as the client sees it.
 * 3. A watch evaluation per arriving session, on that agent at 10,000 and 100,000 sessions: sessions arrive one a
 *    document through the import operation (`importSessions`, which evaluates the agent's watches in the call when
 *    no queue is plugged in), alternately with no watch (the floor) and with three watches (regression, new
 *    cluster, cluster growth, no action) whose window is open, so each such arrival evaluates all three.
 *
 * Each figure is the median of `--runs` runs with their spread; the load average is printed before and after,
 * since the machine is often shared.
 * Run: npm run bench:fleet [-- --sessions 500 --runs 3]
 * `--page-only`: only the clusters page over HTTP at 10,000 and 100,000 sessions (no import, API or watch
 * figures), for before/after runs of a page change alternated on a shared machine.
 */
import { loadavg } from "node:os";
import { failureSignature, type FailureStep } from "../lib/clusters/signature";
import { cohort, jsonlDocuments, type CohortSession } from "../lib/clusters/testing";
import type { DbClient } from "../lib/db/client";
import { writeClusterAssignments, type ClusterAssignment } from "../lib/db/clusters";
import { checkPassCounts } from "../lib/db/online-checks";
import { prismaSql } from "../lib/db/sql";
import { createTestDatabase, type TestDatabase } from "../lib/db/testing";
import { insertWatch } from "../lib/db/watches";
import { importAndSave } from "../lib/server/ingest/imports";
import { importSessions } from "../lib/server/sessions/sessions";
import { listFailureClusters } from "../lib/server/clusters/clusters";
import { getRegressions } from "../lib/server/clusters/regressions";
import { localAdmin } from "../lib/server/principal";
import { startServer, type BenchServer } from "./server";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const N = arg("sessions", 500);
const RUNS = arg("runs", 3);
const PORT = arg("port", 3132);
const PAGE_ONLY = process.argv.includes("--page-only");
const ADMIN = { email: "bench@bench.test", password: "bench-admin-password" };
const WINDOW = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 2, unit = " ms") =>
  `${median(xs).toFixed(digits)}${unit} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

type Doc = { externalId: string; events: { seq: number; kind: string; name: string; error?: unknown }[] };

/** Import of `N` failing sessions, and the same sessions' clustering done again alone: ms per session each. */
async function ingestShare(seed: number): Promise<{ importMs: number; clusterMs: number }> {
  const sessions: CohortSession[] = cohort({
    agent: "bench-fleet",
    seed,
    perVersion: { "1": { count: N, mix: { declined: 0.5, not_found: 0.5 } } },
  });
  const db = await createTestDatabase("postgres");
  try {
    const t0 = performance.now();
    for (const doc of jsonlDocuments(sessions, WINDOW)) {
      const result = await importAndSave(db.prisma, doc, { format: "native" });
      if (!result.ok) throw new Error("import failed");
    }
    const importMs = (performance.now() - t0) / N;

    const rows = await db.prisma.session.findMany({
      select: { id: true, externalId: true, agentId: true, agentVersionId: true, startedAt: true, createdAt: true },
    });
    const byExternal = new Map(rows.map((r) => [r.externalId, r]));
    const docs = sessions.map((s) => s.doc as Doc);
    const made = await db.prisma.clusterMember.count();
    // The clusters the import made, gone: the statements below make them again, as the import did.
    await db.prisma.$executeRaw`DELETE FROM "ClusterMember"`;
    await db.prisma.$executeRaw`DELETE FROM "ClusterRoute"`;
    await db.prisma.$executeRaw`DELETE FROM "FailureCluster"`;
    const t1 = performance.now();
    for (let k = 0; k < docs.length; k += WINDOW) {
      const items: ClusterAssignment[] = docs.slice(k, k + WINDOW).map((doc) => {
        const row = byExternal.get(doc.externalId)!;
        const steps: FailureStep[] = doc.events.map((e) => ({
          seq: e.seq,
          kind: e.kind,
          name: e.name,
          status: e.error ? "failed" : "completed",
          error: e.error ?? null,
        }));
        return {
          sessionId: row.id,
          agentId: row.agentId,
          agentVersionId: row.agentVersionId,
          seenAt: row.startedAt ?? row.createdAt,
          signature: failureSignature({ status: "failed" }, steps),
        };
      });
      await db.prisma.$transaction((tx) => writeClusterAssignments(prismaSql(tx), items, { fresh: true }));
    }
    const clusterMs = (performance.now() - t1) / N;
    const members = await db.prisma.clusterMember.count();
    if (members !== made) throw new Error(`the import made ${made} cluster members, the bench ${members}`);
    return { importMs, clusterMs };
  } finally {
    await db.drop();
  }
}

const CLUSTERS = 20;

/**
 * Sessions `from`..`to`-1 of one agent: five versions over a year, three in ten failed, each in one of 20 clusters;
 * every session judged by the first attached check (failed ones fail it) and every other one by the second (one in
 * seven fails, one in thirteen a check error).
 */
async function fillRows(
  db: TestDatabase,
  agentId: string,
  versions: string[],
  clusters: string[],
  checks: string[],
  from: number,
  to: number,
) {
  await db.prisma.$executeRaw`
    INSERT INTO "Session" ("id", "agentId", "agentVersionId", "externalId", "format", "status", "outcome",
      "startedAt", "eventCount", "modelCallCount", "toolCallCount", "errorCount", "createdAt")
    SELECT 's' || lpad(i::text, 7, '0'), ${agentId}, ((${versions})::text[])[1 + (i % 5)],
      'x' || i, 'native', CASE WHEN i % 10 < 3 THEN 'failed' ELSE 'completed' END,
      CASE WHEN i % 10 < 3 THEN 'failed' ELSE 'passed' END,
      timestamptz '2026-01-01' + ((i::bigint * 7919) % (365 * 86400)) * interval '1 second',
      4, 2, 2, CASE WHEN i % 10 < 3 THEN 1 ELSE 0 END,
      timestamptz '2026-01-01' + ((i::bigint * 7919) % (365 * 86400)) * interval '1 second' + interval '1 hour'
    FROM generate_series(${from}::int, ${to - 1}::int) AS i`;
  await db.prisma.$executeRaw`
    INSERT INTO "ClusterMember" ("sessionId", "clusterId", "signatureHash", "agentVersionId", "seenAt")
    SELECT s.id, ((${clusters})::text[])[1 + (i % ${CLUSTERS})], 'h' || (i % ${CLUSTERS}), s."agentVersionId", s."startedAt"
    FROM generate_series(${from}::int, ${to - 1}::int) AS i JOIN "Session" s ON s.id = 's' || lpad(i::text, 7, '0')
    WHERE i % 10 < 3`;
  await db.prisma.$executeRaw`
    INSERT INTO "SessionCheckVerdict" ("sessionId", "checkId", "agentId", "agentVersionId", outcome, reason,
      "eventCount")
    SELECT s.id, ${checks[0]}, s."agentId", s."agentVersionId", CASE WHEN i % 10 < 3 THEN 'fail' ELSE 'pass' END, '', 4
    FROM generate_series(${from}::int, ${to - 1}::int) AS i JOIN "Session" s ON s.id = 's' || lpad(i::text, 7, '0')
    UNION ALL
    SELECT s.id, ${checks[1]}, s."agentId", s."agentVersionId",
      CASE WHEN i % 13 = 0 THEN 'check_error' WHEN i % 7 = 0 THEN 'fail' ELSE 'pass' END, '', 4
    FROM generate_series(${from}::int, ${to - 1}::int) AS i JOIN "Session" s ON s.id = 's' || lpad(i::text, 7, '0')
    WHERE i % 2 = 0`;
}

/**
 * Sessions `from`..`to`-1 written 10,000 a statement (as imports come, in pieces: one statement of 90,000 would
 * update each kept count some thousand times in one transaction), then the tables vacuumed and analyzed, as
 * autovacuum would after such a load.
 */
async function fill(
  db: TestDatabase,
  agentId: string,
  versions: string[],
  clusters: string[],
  checks: string[],
  from: number,
  to: number,
) {
  for (let k = from; k < to; k += 10_000)
    await fillRows(db, agentId, versions, clusters, checks, k, Math.min(to, k + 10_000));
  for (const table of [
    "Session",
    "ClusterMember",
    "FailureCluster",
    "AgentDayPassCount",
    "ClusterVersionCount",
    "SessionCheckVerdict",
    "CheckVerdictCount",
  ])
    await db.prisma.$executeRawUnsafe(`VACUUM ANALYZE "${table}"`);
}

/** The per-check counts as the regressions read worked them out before the kept counts: every verdict grouped. */
async function checkPassCountsByScan(client: DbClient, agentId: string) {
  const byVersion = await client.$queryRaw<unknown[]>`
    SELECT v."checkId", c.name, v."agentVersionId", av.version,
      min(coalesce(s."startedAt", s."createdAt")) AS "firstSeen",
      (count(*) FILTER (WHERE v.outcome = 'pass'))::int AS passed,
      (count(*) FILTER (WHERE v.outcome = 'fail'))::int AS failed
    FROM "SessionCheckVerdict" v
    JOIN "Check" c ON c.id = v."checkId"
    JOIN "AgentVersion" av ON av.id = v."agentVersionId"
    JOIN "Session" s ON s.id = v."sessionId"
    WHERE v."agentId" = ${agentId} AND v.outcome IN ('pass', 'fail')
    GROUP BY 1, 2, 3, 4 ORDER BY 2, 5, 4`;
  const byDay = await client.$queryRaw<unknown[]>`
    SELECT v."checkId", to_char((coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
      (count(*) FILTER (WHERE v.outcome = 'pass'))::int AS passed,
      (count(*) FILTER (WHERE v.outcome = 'fail'))::int AS failed
    FROM "SessionCheckVerdict" v JOIN "Session" s ON s.id = v."sessionId"
    WHERE v."agentId" = ${agentId} AND v.outcome IN ('pass', 'fail')
    GROUP BY 1, 2 ORDER BY 2, 1`;
  return { byVersion, byDay };
}

type Read = () => Promise<unknown>;

/**
 * The API's work up to its first byte: the operation its route calls and the JSON of its answer (the route sends
 * it whole), in this process; HTTP and the API key's check are not counted.
 */
async function firstByte(read: Read): Promise<number> {
  const t = performance.now();
  const body = JSON.stringify(await read());
  const ms = performance.now() - t;
  if (body.length < 10) throw new Error("empty answer");
  return ms;
}

const ARRIVALS = 10;
const WATCHES = [{ kind: "regression" }, { kind: "new_cluster" }, { kind: "cluster_growth", perDay: 1_000_000 }];

/**
 * Per run, `ARRIVALS` sessions arriving alone with no watch and as many with the three watches (each evaluation's
 * window open), interleaved so the load drifts alike for both: the median ms per arrival of each.
 */
async function watchArrivals(db: TestDatabase, agentId: string, size: number) {
  const admin = localAdmin("bench");
  const sessions = cohort({
    agent: "bench-fleet",
    seed: size,
    perVersion: { "5": { count: 2 * ARRIVALS * RUNS, mix: { declined: 0.3 } } },
  });
  let next = 0;
  const arrive = async () => {
    const s = sessions[next++]!;
    const doc = JSON.stringify({ ...s.doc, externalId: `arrival-${size}-${next}` });
    const t = performance.now();
    const result = await importSessions(admin, { body: doc, format: "native" }, db.prisma);
    const ms = performance.now() - t;
    if (!result.ok) throw new Error("import failed");
    return ms;
  };
  const floors: number[] = [];
  const watched: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const alone: number[] = [];
    const withWatches: number[] = [];
    for (let i = 0; i < ARRIVALS; i++) {
      await db.prisma.watch.deleteMany({ where: { agentId } });
      alone.push(await arrive());
      for (const { kind, ...condition } of WATCHES)
        await insertWatch(db.prisma, {
          agentId,
          name: `bench ${kind}`,
          kind,
          condition,
          actions: {},
          costBound: null,
          windowSeconds: 60,
          createdBy: "bench",
        });
      withWatches.push(await arrive());
    }
    floors.push(median(alone));
    watched.push(median(withWatches));
  }
  await db.prisma.watch.deleteMany({ where: { agentId } });
  const ratios = watched.map((w, i) => w / floors[i]!);
  const added = watched.map((w, i) => w - floors[i]!);
  console.log(
    `  a session arriving at ${size}: import alone ${spread(floors, 1)}; with ${WATCHES.length} watches evaluated ${spread(watched, 1)}`,
  );
  console.log(
    `    watch evaluation per arriving session: ${spread(added, 1)} added, ${spread(ratios, 2, "x")} the import alone (load ${load()})`,
  );
}

/** Signs in as the admin the server made at start: the clusters page is for signed-in users. */
async function signIn(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`sign-in: HTTP ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** A page over HTTP: the time to its first byte as the client sees it (the whole body is read after). */
async function httpFirstByte(url: string, cookie: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const reader = res.body!.getReader();
  let ms = 0;
  for (let first = true; ; first = false) {
    const { done } = await reader.read();
    if (first) ms = performance.now() - t0;
    if (done) break;
  }
  return ms;
}

async function apiAtScale() {
  const db = await createTestDatabase("postgres");
  const admin = localAdmin("bench");
  let server: BenchServer | null = null;
  try {
    const agent = await db.prisma.agent.create({ data: { name: "bench-fleet", adapter: "generic" } });
    const versions: string[] = [];
    for (const v of ["1", "2", "3", "4", "5"])
      versions.push(
        (await db.prisma.agentVersion.create({ data: { agentId: agent.id, version: v, capabilities: [] } })).id,
      );
    const clusters: string[] = [];
    for (let c = 0; c < CLUSTERS; c++)
      clusters.push(
        (
          await db.prisma.failureCluster.create({
            data: {
              agentId: agent.id,
              signatureHash: `h${c}`,
              step: "tool:lookup_order",
              errorType: "NotFound",
              message: `kind ${c}`,
            },
          })
        ).id,
      );
    const checks: string[] = [];
    for (const [name, text] of [
      ["bench refunded", "refunded"],
      ["bench apologised", "sorry"],
    ] as const)
      checks.push((await db.prisma.check.create({ data: { name, definition: { kind: "output_contains", text } } })).id);
    for (const checkId of checks)
      await db.prisma.checkAttachment.create({ data: { checkId, agentId: agent.id, createdBy: "bench" } });
    const apis: [string, Read][] = [
      ["GET /api/v1/clusters", () => listFailureClusters(admin, { agentId: agent.id }, db.prisma)],
      ["GET /api/v1/regressions", () => getRegressions(admin, { agentId: agent.id }, db.prisma)],
      ["  of which the per-check counts (checkPassCounts)", () => checkPassCounts(db.prisma, agent.id)],
      ["  the per-check full scan they replaced", () => checkPassCountsByScan(db.prisma, agent.id)],
    ];
    const figures = new Map<string, number[]>();
    let filled = 0;
    for (const size of [10_000, 100_000]) {
      const t0 = performance.now();
      await fill(db, agent.id, versions, clusters, checks, filled, size);
      filled = size;
      console.log(`  ${size} sessions written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const [name, read] of PAGE_ONLY ? [] : apis) {
        await firstByte(read); // warm
        const ms: number[] = [];
        for (let r = 0; r < RUNS; r++) ms.push(await firstByte(read));
        figures.set(`${name}:${size}`, ms);
        console.log(`  ${name} at ${size}: first byte ${spread(ms, 1)}`);
      }
      server ??= await startServer({ port: PORT, databaseUrl: db.url, admin: ADMIN });
      const cookie = await signIn(server.base);
      const page = `${server.base}/failures?agent=bench-fleet`;
      await httpFirstByte(page, cookie); // warm
      const ms: number[] = [];
      for (let r = 0; r < RUNS; r++) ms.push(await httpFirstByte(page, cookie));
      figures.set(`${HTTP_PAGE}:${size}`, ms);
      console.log(`  ${HTTP_PAGE} at ${size}: first byte over HTTP ${spread(ms, 1)}`);
      if (!PAGE_ONLY) await watchArrivals(db, agent.id, size);
    }
    for (const name of [...(PAGE_ONLY ? [] : apis.map(([n]) => n)), HTTP_PAGE]) {
      const small = figures.get(`${name}:10000`)!;
      const large = figures.get(`${name}:100000`)!;
      const ratios = large.map((l, i) => l / small[i]!);
      console.log(
        `  ${name}: 100,000 ÷ 10,000 first byte ${(median(large) / median(small)).toFixed(2)}x (per run ${spread(ratios, 2, "x")})`,
      );
    }
  } finally {
    await server?.stop();
    await db.drop();
  }
}

const HTTP_PAGE = "the clusters page /failures?agent=bench-fleet";

async function main() {
  console.log(`load average before: ${load()}`);
  if (PAGE_ONLY) {
    console.log(`the clusters page over 10,000 and 100,000 sessions of one agent, PostgreSQL, ${RUNS} runs`);
    await apiAtScale();
    console.log(`load average after: ${load()}`);
    return;
  }
  console.log(`1. clustering at import, PostgreSQL, ${N} failing sessions a run, ${RUNS} runs`);
  const imports: number[] = [];
  const clustering: number[] = [];
  const shares: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const { importMs, clusterMs } = await ingestShare(10 + r);
    imports.push(importMs);
    clustering.push(clusterMs);
    shares.push((clusterMs / importMs) * 100);
  }
  console.log(
    `  import per session ${spread(imports)}; signature + cluster assignment per session ${spread(clustering)}`,
  );
  console.log(`  clustering share of a session's import: ${spread(shares, 1, "%")}`);
  console.log(`2. clusters and regressions API over 10,000 and 100,000 sessions of one agent, PostgreSQL`);
  await apiAtScale();
  console.log(`load average after: ${load()}`);
}

await main();
