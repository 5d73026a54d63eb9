/**
 * The session list over 100,000 sessions, on PostgreSQL (127.0.0.1:5432, a database of its own,
 * dropped at the end) and on PGlite: for every sort both ways, the first page and a page deep in
 * the order (its cursor the 60,000th session), alone and under a filter, 50 rows each. Prints the
 * median and the spread of `--runs` reads, the load average, and PostgreSQL's plan of the deep
 * page of each sort (an index range, no Sort node).
 * Run: npx tsx bench/session-list.ts [-- --sessions 100000 --runs 5 --engine postgres|pglite|both]
 */
import { loadavg } from "node:os";
import { listSessions } from "../lib/db/session-list";
import { createTestDatabase, type TestDatabase, type TestEngine } from "../lib/db/testing";
import { SESSION_SORTS, SessionListQuery, type SessionSort } from "../lib/session-list/query";

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
  const version = await db.prisma.agentVersion.create({ data: { agentId: agent.id, version: "1", capabilities: [] } });
  // Values that repeat (ties), and an empty start or duration on one session in ten.
  await db.prisma.$executeRaw`
    INSERT INTO "Session" ("id", "agentId", "agentVersionId", "externalId", "title", "format", "status",
      "startedAt", "durationMs", "eventCount", "modelCallCount", "toolCallCount", "errorCount",
      "inputTokens", "outputTokens", "costUsd", "toolNames", "searchText", "createdAt")
    SELECT 's' || lpad(i::text, 7, '0'), ${agent.id}, ${version.id}, 'x' || i, 'Session ' || i, 'native',
      (ARRAY['completed', 'failed', 'incomplete'])[1 + i % 3],
      CASE WHEN i % 10 = 3 THEN NULL ELSE timestamptz '2026-01-01' + (i * 37 % 86400) * interval '1 minute' END,
      CASE WHEN i % 10 = 7 THEN NULL ELSE (i * 7919) % 600000 END,
      1 + i % 300, 1, 0, i % 7, (i * 13) % 50000, (i * 7) % 9000, ((i * 31) % 5000) / 1000.0,
      ARRAY['lookup'], 'session ' || i, timestamptz '2026-02-01' + i * interval '1 second'
    FROM generate_series(1, ${SESSIONS}) AS i`;
  await db.prisma.$executeRaw`ANALYZE "Session"`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(run: () => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  return `${median(ms).toFixed(1)} ms (${Math.min(...ms).toFixed(1)}–${Math.max(...ms).toFixed(1)})`;
}

/** The session `depth` rows into the order: the cursor of a deep page. */
async function cursorAt(db: TestDatabase, sort: SessionSort, depth: number): Promise<string> {
  let cursor: string | undefined;
  let seen = 0;
  while (seen < depth) {
    const page = await listSessions(db.prisma, SessionListQuery.parse({ sort, limit: 200, cursor }));
    seen += page.sessions.length;
    cursor = page.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return cursor!;
}

async function main() {
  for (const engine of ENGINES) {
    const db = await createTestDatabase(engine);
    try {
      const t0 = performance.now();
      await fill(db);
      console.log(`\n${engine}: ${SESSIONS} sessions written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      for (const sort of SESSION_SORTS) {
        const deep = await cursorAt(db, sort, Math.floor(SESSIONS * 0.6));
        const first = await time(() => listSessions(db.prisma, SessionListQuery.parse({ sort })));
        const deepPage = await time(() => listSessions(db.prisma, SessionListQuery.parse({ sort, cursor: deep })));
        const filtered = await time(() =>
          listSessions(db.prisma, SessionListQuery.parse({ sort, status: "failed", minCostUsd: "1", cursor: deep })),
        );
        console.log(`${sort.padEnd(12)} first ${first} · deep ${deepPage} · deep, filtered ${filtered}`);
      }
      console.log(
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
      );
      if (engine === "postgres") await plans(db);
    } finally {
      await db.drop();
    }
  }
}

/** PostgreSQL's plan of a deep page of two sorts (one with empty values): the keyset is an Index Cond. */
async function plans(db: TestDatabase) {
  const [row] = await db.prisma.$queryRaw<{ id: string; startedAt: Date }[]>`
    SELECT "id", "startedAt" FROM "Session" WHERE "startedAt" IS NOT NULL ORDER BY "startedAt" DESC, "id" DESC OFFSET 60000 LIMIT 1`;
  const [cost] = await db.prisma.$queryRaw<{ id: string; costUsd: number }[]>`
    SELECT "id", "costUsd" FROM "Session" ORDER BY "costUsd", "id" OFFSET 60000 LIMIT 1`;
  const show = async (label: string, plan: { "QUERY PLAN": string }[]) =>
    console.log(`\n${label}\n${plan.map((p) => `  ${p["QUERY PLAN"]}`).join("\n")}`);
  await show(
    "-startedAt, deep page:",
    await db.prisma.$queryRaw`EXPLAIN ANALYZE SELECT s."id" FROM "Session" s WHERE s."startedAt" IS NOT NULL
      AND (s."startedAt", s."id") < (${row!.startedAt}::timestamptz, ${row!.id}) ORDER BY s."startedAt" DESC, s."id" DESC LIMIT 51`,
  );
  await show(
    "costUsd, deep page, status=failed:",
    await db.prisma.$queryRaw`EXPLAIN ANALYZE SELECT s."id" FROM "Session" s WHERE s."status" = 'failed'::text
      AND (s."costUsd", s."id") > (${cost!.costUsd}::float8, ${cost!.id}) ORDER BY s."costUsd" ASC, s."id" ASC LIMIT 51`,
  );
  await show(
    "startedAt empty ones, by id:",
    await db.prisma.$queryRaw`EXPLAIN ANALYZE SELECT s."id" FROM "Session" s WHERE s."startedAt" IS NULL
      ORDER BY s."id" DESC LIMIT 51`,
  );
}

await main();
