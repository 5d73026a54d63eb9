import { ingestAgentsItems, ingestOtlpSpans } from "../lib/server/ingest/traces";
import type { Db } from "../lib/db/client";
import { decodeOtlpJson } from "../lib/ingest/otlp";
import { agentsRunsOf } from "../lib/ingest/testing";
import type { AgentsItem } from "../lib/ingest/openai-agents-parse";
import { sessionBody } from "./ingest-bodies";
import { sessionColumns } from "./ingest-raw";

/**
 * An export's cost against how many traces its session has: a session of SHORT and one of LONG traces
 * (stored in one export each), then LATE exports of one new trace each to both; the median export of
 * the long one ÷ the short one's. Target: flat (≤ 1.20×), for OTLP and the Agents SDK.
 */
export async function longSection(prisma: Db) {
  const SHORT = 100;
  const LONG = Number(process.env.LONG_TRACES ?? 2000);
  const LATE = 31;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sizes = [SHORT, LONG] as const;
  // The late exports alternate between the two sessions, so that both sides run under the same load.
  const interleaved = async (exportTo: (n: number, late: number) => Promise<void>) => {
    const times = new Map<number, number[]>(sizes.map((n) => [n, []]));
    for (let late = 0; late < LATE; late++)
      for (const n of sizes) {
        const t0 = performance.now();
        await exportTo(n, late);
        times.get(n)!.push(performance.now() - t0);
      }
    const [short, long] = sizes.map((n) => median(times.get(n)!));
    return `median ${long!.toFixed(1)} vs ${short!.toFixed(1)} ms = ${(long! / short!).toFixed(2)}×  (target ≤ 1.20×)`;
  };

  // OTLP: the recorded trace repeated, one export of the first N traces, then one export per trace.
  const otlpLate = new Map<number, string[]>();
  for (const [i, n] of sizes.entries()) {
    const name = `long-otlp-${n}`;
    const doc = JSON.parse(
      sessionBody(900 + i, 5000 + i * 10, n + LATE).replaceAll(`bench-session-${900 + i}`, name),
    ) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
    const traceIds = [...new Set(spans.map((sp) => sp.traceId))];
    const bodyOf = (ids: Set<string>) => {
      const part = structuredClone(doc);
      part.resourceSpans[0]!.scopeSpans[0]!.spans = spans.filter((sp) => ids.has(sp.traceId));
      return JSON.stringify(part);
    };
    await otlpIngest(bodyOf(new Set(traceIds.slice(0, n))));
    otlpLate.set(
      n,
      traceIds.slice(n).map((t) => bodyOf(new Set([t]))),
    );
  }
  const otlpLine = await interleaved(async (n, late) => {
    const result = await otlpIngest(otlpLate.get(n)![late]!);
    if (!result.incremental) throw new Error(`long-otlp-${n}: an export fell back to the full rebuild`);
  });

  // Agents SDK: runs of the recorded export in one group, the first N in one export, then one run per export.
  const agentsLate = new Map<number, AgentsItem[][]>();
  for (const n of sizes) {
    const items = agentsRunsOf(`long-agents-${n}`, n + LATE);
    const per = items.length / (n + LATE);
    const first = await ingestAgentsItems(prisma, items.slice(0, n * per));
    if (!first.ok) throw new Error(JSON.stringify(first.issues.slice(0, 3)));
    agentsLate.set(
      n,
      Array.from({ length: LATE }, (_, r) => items.slice((n + r) * per, (n + r + 1) * per)),
    );
  }
  const agentsLine = await interleaved(async (n, late) => {
    const result = await ingestAgentsItems(prisma, agentsLate.get(n)![late]!);
    if (!result.ok || !result.incremental) throw new Error(`long-agents-${n}: an export was not incremental`);
  });
  console.log(`OTLP, an export of one trace to a session of ${LONG} traces vs ${SHORT}: ${otlpLine}`);
  console.log(`Agents SDK, an export of one run to a group of ${LONG} traces vs ${SHORT}: ${agentsLine}`);

  async function otlpIngest(body: string) {
    const decoded = decodeOtlpJson(body);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result;
  }
}

/**
 * An export into a session whose call ids OTHERS other sessions' spans name too (a provider that reuses
 * short tool-call ids: vLLM, Ollama), ÷ the same export into a session whose call ids nobody else names.
 * Both sessions get BASE traces in one export, then LATE exports of one trace each, interleaved; the
 * other sessions hold copies of every span of those traces that names a call id. Target: ≈ 1.0.
 */
export async function sharedCallIdsSection(prisma: Db) {
  const OTHERS = Number(process.env.SHARED_SESSIONS ?? 1000);
  const BASE = 5;
  const LATE = 21;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  // The same recorded trace under trace ids of its own for each session, the call ids renamed per turn
  // only: every session built from `body` names the same call ids in the same turns.
  const body = (name: string, seed: number, ownIds: boolean) => {
    const text = sessionBody(950, seed, BASE + LATE).replaceAll("bench-session-950", name);
    return ownIds ? text.replace(/call_(lookup|refund|time)_/g, "own_$1_") : text;
  };
  const splitOf = (text: string) => {
    const doc = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: { traceId: string }[] }[] }[] };
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
    const traceIds = [...new Set(spans.map((sp) => sp.traceId))];
    const bodyOf = (ids: string[]) => {
      const part = structuredClone(doc);
      part.resourceSpans[0]!.scopeSpans[0]!.spans = spans.filter((sp) => ids.includes(sp.traceId));
      return JSON.stringify(part);
    };
    const lateTraces = traceIds.slice(BASE);
    return { first: bodyOf(traceIds.slice(0, BASE)), late: lateTraces.map((t) => bodyOf([t])), lateTraces };
  };
  const ingest = async (text: string) => {
    const decoded = decodeOtlpJson(text);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues.slice(0, 3)));
    const result = await ingestOtlpSpans(prisma, decoded.spans, "otlp-json");
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result;
  };

  // The other sessions: one stored through the ingest, then copies of it (the session row, and its spans
  // that name a call id in the late turns: what the late exports' reads could meet).
  await ingest(body("callscope-other", 7000, false));
  const template = await prisma.session.findFirstOrThrow({ where: { externalId: "session:callscope-other" } });
  await prisma.session.createMany({
    data: Array.from({ length: OTHERS - 1 }, (_, i) => ({
      ...sessionColumns({ ...template, events: [] }),
      externalId: `callscope-other:${i}`,
    })),
  });
  const { lateTraces } = splitOf(body("callscope-other", 7000, false));
  await prisma.$executeRaw`
    INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", "startNs", "lastNs", role, "callIds")
    SELECT md5(random()::text), 'callscope:' || o.id, t."traceId", t."spanId", o.id, t."startNs", t."lastNs", t.role, t."callIds"
    FROM "TraceSpan" t, "Session" o
    WHERE t."sessionId" = ${template.id} AND t."traceId" = ANY(${lateTraces}::text[]) AND cardinality(t."callIds") > 0
      AND o."externalId" LIKE 'callscope-other:%'`;
  const [{ n: shared }] = await prisma.$queryRaw<[{ n: bigint }]>`
    SELECT count(*) AS n FROM "TraceSpan" WHERE "traceId" = ANY(${lateTraces}::text[]) AND cardinality("callIds") > 0`;

  // The two sessions measured: the same shape, one naming the others' call ids, one its own.
  const sides = {
    shared: splitOf(body("callscope-shared", 7100, false)),
    own: splitOf(body("callscope-own", 7200, true)),
  };
  for (const side of Object.values(sides)) await ingest(side.first);
  const times = { shared: [] as number[], own: [] as number[] };
  for (let late = 0; late < LATE; late++)
    // Each side first in every other pair: neither gains from going second.
    for (const which of late % 2 === 0 ? (["shared", "own"] as const) : (["own", "shared"] as const)) {
      const t0 = performance.now();
      const result = await ingest(sides[which].late[late]!);
      times[which].push(performance.now() - t0);
      if (!result.incremental) throw new Error(`callscope-${which}: an export fell back to the full rebuild`);
    }
  const [a, b] = [median(times.shared), median(times.own)];
  console.log(
    `OTLP, an export into a session whose call ids ${OTHERS} other sessions share (${shared} spans name them) vs one nobody shares: median ${a.toFixed(1)} vs ${b.toFixed(1)} ms = ${(a / b).toFixed(2)}×  (target ≈ 1.00)`,
  );
}
