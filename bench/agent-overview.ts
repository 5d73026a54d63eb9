/**
 * An agent's overview over 100,000 sessions (90% of one agent, across five versions and a year of days, one
 * in ten without a start time), on PostgreSQL (127.0.0.1:5432, a database of its own, dropped at the end) and
 * on PGlite: the last 30 days and the longest range (366 days), all versions and one. Prints the median and
 * spread of `--runs` reads, and PostgreSQL's plan of the 30-day read.
 * Run: npx tsx bench/agent-overview.ts [-- --sessions 100000 --runs 5 --engine postgres|pglite|both]
 */
import { agentOverviewRows } from "../lib/db/agent-overview";
import { createTestDatabase, type TestDatabase, type TestEngine } from "../lib/db/testing";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const SESSIONS = Number(arg("sessions", "100000"));
const RUNS = Number(arg("runs", "5"));
const ENGINES: TestEngine[] =
  arg("engine", "both") === "both" ? ["postgres", "pglite"] : [arg("engine", "") as TestEngine];

async function fill(db: TestDatabase) {
  const agent = await db.prisma.agent.create({ data: { name: "bench-agent", adapter: "generic" } });
  const other = await db.prisma.agent.create({ data: { name: "other-agent", adapter: "generic" } });
  const versions = [];
  for (const v of ["1", "2", "3", "4", "5"])
    versions.push(
      (await db.prisma.agentVersion.create({ data: { agentId: agent.id, version: v, capabilities: [] } })).id,
    );
  const otherVersion = await db.prisma.agentVersion.create({
    data: { agentId: other.id, version: "1", capabilities: [] },
  });
  await db.prisma.$executeRaw`
    INSERT INTO "Session" ("id", "agentId", "agentVersionId", "externalId", "format", "status", "outcome",
      "startedAt", "durationMs", "eventCount", "modelCallCount", "toolCallCount", "errorCount",
      "inputTokens", "outputTokens", "costUsd", "createdAt")
    SELECT 's' || lpad(i::text, 7, '0'),
      CASE WHEN i % 10 = 9 THEN ${other.id} ELSE ${agent.id} END,
      CASE WHEN i % 10 = 9 THEN ${otherVersion.id} ELSE ((${versions})::text[])[1 + (i * 5 / ${SESSIONS})] END,
      'x' || i, 'native', (ARRAY['completed', 'failed', 'incomplete'])[1 + i % 3],
      (ARRAY['passed', 'failed', 'unknown'])[1 + i % 3],
      CASE WHEN i % 10 = 3 THEN NULL ELSE timestamptz '2026-01-01' + (i::bigint * 365 * 86400 / ${SESSIONS}) * interval '1 second' END,
      CASE WHEN i % 10 = 7 THEN NULL ELSE (i * 7919) % 600000 END,
      10, 4, 4, i % 3, (i * 13) % 50000, (i * 7) % 9000, ((i * 31) % 5000) / 1000.0,
      timestamptz '2026-01-01' + (i::bigint * 365 * 86400 / ${SESSIONS}) * interval '1 second' + interval '1 hour'
    FROM generate_series(0, ${SESSIONS - 1}) AS i`;
  await db.prisma.$executeRaw`ANALYZE "Session"`;
  return agent.id;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(run: () => Promise<unknown[]>): Promise<string> {
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    rows = (await run()).length;
    ms.push(performance.now() - t);
  }
  return `${median(ms).toFixed(1)} ms (${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)}), ${rows} rows`;
}

async function main() {
  for (const engine of ENGINES) {
    const db = await createTestDatabase(engine);
    try {
      const t0 = performance.now();
      const agentId = await fill(db);
      console.log(`\n${engine}: ${SESSIONS} sessions written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const month = { agentId, from: new Date("2026-06-01T00:00:00Z"), to: new Date("2026-07-01T00:00:00Z") };
      const year = { agentId, from: new Date("2026-01-01T00:00:00Z"), to: new Date("2027-01-02T00:00:00Z") };
      console.log(`30 days, every version   ${await time(() => agentOverviewRows(db.prisma, month))}`);
      console.log(
        `30 days, version 3       ${await time(() => agentOverviewRows(db.prisma, { ...month, version: "3" }))}`,
      );
      console.log(`366 days, every version  ${await time(() => agentOverviewRows(db.prisma, year))}`);
      if (engine === "postgres") {
        const plan = await db.prisma.$queryRaw<{ "QUERY PLAN": string }[]>`
          EXPLAIN ANALYZE SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY s."durationMs")
          FROM "Session" s WHERE s."agentId" = ${agentId}
            AND ((s."startedAt" >= ${month.from} AND s."startedAt" < ${month.to})
              OR (s."startedAt" IS NULL AND s."createdAt" >= ${month.from} AND s."createdAt" < ${month.to}))`;
        console.log(plan.map((p) => `  ${p["QUERY PLAN"]}`).join("\n"));
      }
    } finally {
      await db.drop();
    }
  }
}

await main();
