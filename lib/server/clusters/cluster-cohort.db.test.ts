import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seeded } from "@/lib/clusters/testing";
import { backfillClusters } from "@/lib/db/clusters";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { localAdmin } from "@/lib/server/principal";
import { listClusterSessions, listFailureClusters } from "./clusters";

// A generated cohort of the demo agents (their names, adapters and versions; not the demo sessions themselves), a
// few thousand sessions written in bulk (not imported one by one) and clustered from the stored rows as the
// start-up backfill does: three known failure kinds with known counts, each message carrying ids, amounts,
// addresses, URLs and times that differ per session, beside passing sessions and sessions that recovered from a
// failed call. The clusters must come out exactly: one per kind, of the known size, holding exactly that kind's
// sessions, and no passing session anywhere.

const admin = localAdmin("cohort test");
const r = seeded(2026);
const ts = () => new Date(Date.UTC(2026, 0, 1) + r.int(0, 300 * 86_400_000)).toISOString();

type Kind = { agent: string; tool: string | null; type: string; message: () => string; count: number };
/** The three failure kinds: the agent they fail in, the failing step, the error, and how many sessions. */
const KINDS = {
  smtp: {
    agent: "acme-billing-assistant",
    tool: "send_receipt",
    type: "SmtpError",
    message: () =>
      `550 5.1.1 <billing-${r.int(1, 99999)}@clinic-${r.alnum(6)}.example>: recipient rejected at ${ts()} after ${r.int(1, 9000)} ms`,
    count: 500,
  },
  invoice: {
    agent: "acme-billing-assistant",
    tool: "get_invoice",
    type: "Timeout",
    message: () =>
      `GET https://billing.example/api/invoices/inv_${r.int(10_000, 99_999)} timed out after ${r.int(1000, 30_000)}ms`,
    count: 350,
  },
  declined: {
    agent: "harbor-pine-support",
    tool: "refund_payment",
    type: "PaymentDeclined",
    message: () =>
      `Card ending ${r.int(1000, 9999)} declined for $${r.int(1, 2000)}.${String(r.int(0, 99)).padStart(2, "0")} on order '${r.int(100, 999_999)}'`,
    count: 450,
  },
} satisfies Record<string, Kind>;
type KindName = keyof typeof KINDS;
/** Sessions per demo agent that pass, and that pass after recovering from a failed call of the same tool. */
const PASSING = 1400;
const RECOVERED = 300;
/** The demo agents the cohort runs as: name, adapter and version as the demo data has them. */
const DEMO_AGENTS = [
  ["acme-billing-assistant", "generic", "1.4.0"],
  ["harbor-pine-support", "openai-agents", "2025.03.2"],
  ["trailhead-tracking-bot", "pydantic-ai", "0.9.3"],
] as const;
const AGENTS = DEMO_AGENTS.map(([name]) => name);

type Row = { id: string; agent: string; kind: KindName | "passed" | "recovered"; events: object[]; status: string };

/** One generated session: a model call, then a tool call that completes, fails, or fails and is retried. */
function generate(n: number, agent: string, kind: Row["kind"]): Row {
  const id = `gen${String(n).padStart(6, "0")}`;
  const at = (s: number) => new Date(Date.UTC(2026, 2, 1) + n * 60_000 + s * 1000).toISOString();
  const ev = (seq: number, k: string, name: string, status: string, error: object | null = null) => ({
    id: `${id}e${seq}`,
    sessionId: id,
    seq,
    kind: k,
    name,
    status,
    error,
    output: error ? null : { ok: seq },
    startedAt: at(seq),
  });
  const events = [ev(0, "model_call", "demo-model", "completed")];
  if (kind === "passed" || kind === "recovered") {
    const tool = r.pick(["lookup_order", "get_invoice", "track_package"]);
    if (kind === "recovered")
      events.push(
        ev(1, "tool_call", tool, "failed", { type: "Transient", message: `connection reset after ${r.int(1, 500)}ms` }),
      );
    events.push(ev(events.length, "tool_call", tool, "completed"));
    events.push(ev(events.length, "final_output", "final_output", "completed"));
    return { id, agent, kind, events, status: "completed" };
  }
  const k: Kind = KINDS[kind];
  events.push(ev(1, "tool_call", k.tool!, "failed", { type: k.type, message: k.message() }));
  // Half of them still answered (the run completed with the call failed), half stopped there.
  const answered = r.next() < 0.5;
  if (answered) events.push(ev(2, "final_output", "final_output", "completed"));
  return { id, agent, kind, events, status: answered ? "completed" : "failed" };
}

/** Writes the sessions and their events in a few statements (jsonb_to_recordset), 1,000 sessions each. */
async function insertBulk(
  db: TestDatabase,
  rows: readonly Row[],
  agents: Map<string, { id: string; version: string }>,
) {
  for (let k = 0; k < rows.length; k += 1000) {
    const part = rows.slice(k, k + 1000);
    const sessions = part.map((s) => ({
      id: s.id,
      agentId: agents.get(s.agent)!.id,
      agentVersionId: agents.get(s.agent)!.version,
      externalId: `cohort:${s.id}`,
      status: s.status,
      startedAt: (s.events[0] as { startedAt: string }).startedAt,
      eventCount: s.events.length,
      toolCallCount: s.events.filter((e) => (e as { kind: string }).kind === "tool_call").length,
      errorCount: s.events.filter((e) => (e as { status: string }).status === "failed").length,
    }));
    await db.prisma.$executeRaw`
      INSERT INTO "Session" (id, "agentId", "agentVersionId", "externalId", format, status, "startedAt",
        "eventCount", "modelCallCount", "toolCallCount", "errorCount")
      SELECT id, "agentId", "agentVersionId", "externalId", 'native', status, "startedAt", "eventCount", 1,
        "toolCallCount", "errorCount"
      FROM jsonb_to_recordset(${JSON.stringify(sessions)}::jsonb) AS x(id text, "agentId" text,
        "agentVersionId" text, "externalId" text, status text, "startedAt" timestamptz, "eventCount" int,
        "toolCallCount" int, "errorCount" int)`;
    await db.prisma.$executeRaw`
      INSERT INTO "Event" (id, "sessionId", seq, kind, name, status, error, output, "startedAt")
      SELECT id, "sessionId", seq, kind, name, status, error, output, "startedAt"
      FROM jsonb_to_recordset(${JSON.stringify(part.flatMap((s) => s.events))}::jsonb) AS x(id text,
        "sessionId" text, seq int, kind text, name text, status text, error jsonb, output jsonb,
        "startedAt" timestamptz)`;
  }
}

describe("a generated cohort of the demo agents, clustered from stored rows", () => {
  let db: TestDatabase;
  const rows: Row[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    const agents = new Map<string, { id: string; version: string }>();
    for (const [name, adapter, version] of DEMO_AGENTS) {
      const agent = await db.prisma.agent.create({
        data: { name, adapter, versions: { create: { version, capabilities: ["overrides", "tool_policies"] } } },
        select: { id: true, versions: { select: { id: true } } },
      });
      agents.set(name, { id: agent.id, version: agent.versions[0]!.id });
    }
    const plan: [string, Row["kind"]][] = [];
    for (const [kind, k] of Object.entries(KINDS) as [KindName, Kind][])
      for (let i = 0; i < k.count; i++) plan.push([k.agent, kind]);
    for (let i = 0; i < PASSING; i++) plan.push([AGENTS[i % AGENTS.length]!, "passed"]);
    for (let i = 0; i < RECOVERED; i++) plan.push([AGENTS[i % AGENTS.length]!, "recovered"]);
    for (let i = plan.length - 1; i > 0; i--) {
      const j = r.int(0, i);
      [plan[i], plan[j]] = [plan[j]!, plan[i]!];
    }
    for (const [n, [agent, kind]] of plan.entries()) rows.push(generate(n, agent, kind));
    await insertBulk(db, rows, agents);
    // The start-up backfill, as on a first start over sessions stored before clusters existed.
    await db.prisma.appSetting.deleteMany({ where: { key: "failure_clusters_backfilled" } });
    expect(await backfillClusters(db.prisma)).toBe(rows.length);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  /** Every member of a cluster, a page of 200 at a time. */
  async function members(clusterId: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listClusterSessions(
        admin,
        { clusterId, limit: 200, ...(cursor ? { cursor } : {}) },
        db.prisma,
      );
      out.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return out.sort();
  }

  it("makes one cluster per failure kind, of its exact size and members", async () => {
    const generated = new Set(rows.map((s) => s.id));
    const byId = new Map(rows.map((s) => [s.id, s]));
    const expected: Record<string, { step: string; errorType: string; message: string; size: number }[]> = {
      "acme-billing-assistant": [
        {
          step: "tool:send_receipt",
          errorType: "SmtpError",
          message: "<num> <num> <<email>>: recipient rejected at <ts> after <num> ms",
          size: 500,
        },
        {
          step: "tool:get_invoice",
          errorType: "Timeout",
          message: "GET <url> timed out after <num>",
          size: 350,
        },
      ],
      "harbor-pine-support": [
        {
          step: "tool:refund_payment",
          errorType: "PaymentDeclined",
          message: "Card ending <num> declined for <num> on order <str>",
          size: 450,
        },
      ],
      "trailhead-tracking-bot": [],
    };
    for (const agent of AGENTS) {
      const { clusters } = await listFailureClusters(admin, { agentName: agent }, db.prisma);
      const made = [];
      for (const c of clusters) {
        const ids = await members(c.id);
        expect(ids.length, `${c.label}: its size is its members`).toBe(c.size);
        // A cluster holds sessions of one kind only, and every one of that kind.
        expect(ids.every((id) => generated.has(id))).toBe(true);
        const kinds = new Set(ids.map((id) => byId.get(id)!.kind));
        expect(kinds.size, `${c.label} mixes ${[...kinds].join(", ")}`).toBe(1);
        const kind = [...kinds][0] as KindName;
        expect(ids).toEqual(
          rows
            .filter((s) => s.kind === kind)
            .map((s) => s.id)
            .sort(),
        );
        made.push({ ...c.signature, size: c.size });
      }
      expect(
        made.map(({ step, errorType, message, size }) => ({ step, errorType, message, size })),
        agent,
      ).toEqual(expected[agent]);
    }
  });

  it("puts no passing or recovered session in any cluster", async () => {
    const passing = rows.filter((s) => s.kind === "passed" || s.kind === "recovered").map((s) => s.id);
    expect(passing.length).toBe(PASSING + RECOVERED);
    expect(await db.prisma.clusterMember.count({ where: { sessionId: { in: passing } } })).toBe(0);
    expect(await db.prisma.clusterMember.count({ where: { sessionId: { startsWith: "gen" } } })).toBe(500 + 350 + 450);
  });
});
