import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentsRunsOf } from "@/lib/ingest/agents-testing";
import { mapOpenAiAgentsItems, type AgentsItem } from "@/lib/ingest/openai-agents";
import type { SessionEvent } from "@/lib/replay";
import { fallbacks } from "./trace-increment";
import { getSession, searchTextFor, summarize, toSessionEvent } from "./sessions";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";
import { ingestAgentsItems, type TraceIngestResult } from "./traces";

// The incremental Agents SDK ingest (./agents-increment.ts) must give, after
// EVERY export, the sessions the full mapper gives for all the items sent so
// far: events (order, parents, full inputs, occurrences) and each session's
// own fields, whatever the batching, order, resends and early copies.

function ok(result: TraceIngestResult) {
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

/** Events as the database keeps them: durations in whole milliseconds. */
function asStored(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => ({ ...e, durationMs: e.durationMs === null ? null : Math.round(e.durationMs) }));
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `runs` runs of the recorded export in group `group`; run c starts `starts[c]` ms after the
 * recording (runs overlap when these are close); an ungrouped run is a group of its own.
 */
function runsOf(group: string, starts: readonly number[], grouped: readonly boolean[]): AgentsItem[] {
  const items = agentsRunsOf(group, starts.length);
  return items.map((item) => {
    const c = Number(/_(\d+)_/.exec(item.object === "trace" ? item.id : item.traceId.slice(group.length))![1]);
    if (item.object === "trace") return grouped[c] ? item : { ...item, groupId: null };
    // agentsRunsOf puts run c a minute after run c - 1.
    const shift = (t: string) => iso(Date.parse(t) - c * 60_000 + starts[c]!);
    return { ...item, startedAt: shift(item.startedAt), endedAt: item.endedAt && shift(item.endedAt) };
  });
}

/** A deterministic generator of numbers in [0, 1). */
function random(seed: number) {
  let state = (seed * 2654435761) % 2147483648;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** As the SDK's exporter sends them: a trace item when its trace starts, a span when it ends. */
function exporterOrder(items: readonly AgentsItem[]): AgentsItem[] {
  const first = new Map<string, number>();
  for (const i of items)
    if (i.object === "trace.span")
      first.set(i.traceId, Math.min(first.get(i.traceId) ?? Infinity, Date.parse(i.startedAt)));
  const at = (i: AgentsItem) =>
    i.object === "trace" ? (first.get(i.id) ?? 0) - 0.5 : Date.parse(i.endedAt ?? i.startedAt);
  return [...items].sort((a, b) => at(a) - at(b));
}

/**
 * The exports: in an exporter's order (each trace item first, then its spans as they end) or
 * shuffled; split at random; with early (unended) copies and resends placed anywhere.
 */
function exportsOf(items: readonly AgentsItem[], seed: number, natural: boolean): AgentsItem[][] {
  const rand = random(seed);
  const ordered = natural ? exporterOrder(items) : [...items].sort(() => rand() - 0.5);
  const batches: AgentsItem[][] = [];
  for (let i = 0; i < ordered.length;) {
    const size = 1 + Math.floor(rand() * 6);
    batches.push(ordered.slice(i, i + size));
    i += size;
  }
  // An early copy: not ended, without the output and usage the span gets when it ends.
  const early = items.flatMap((i) => {
    if (i.object !== "trace.span" || rand() >= 0.2) return [];
    const { output: _o, usage: _u, ...spanData } = i.spanData;
    return [{ ...i, endedAt: null, spanData }];
  });
  const resent = items.filter(() => rand() < 0.15);
  const at = (n: number) => Math.floor(rand() * (n + 1));
  if (early.length > 0) batches.splice(at(batches.length), 0, early);
  if (resent.length > 0) batches.splice(at(batches.length), 0, resent);
  return batches;
}

describe.each(TEST_ENGINES)("incremental Agents SDK ingest on %s", (engine) => {
  let db: TestDatabase;
  let tag = 0;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Every session the items sent so far make, as stored, equals the full mapper's; and no other of theirs. */
  async function expectSessionsOf(sent: readonly AgentsItem[]) {
    const reference = mapOpenAiAgentsItems(sent);
    const expected = reference.ok ? reference.sessions : [];
    const keys = [
      ...new Set(
        sent.flatMap((i) => (i.object === "trace" ? [`trace:${i.id}`, `group:${i.groupId}`] : [`trace:${i.traceId}`])),
      ),
    ];
    const stored = await db.prisma.session.findMany({
      where: { format: "openai-agents", externalId: { in: keys } },
      select: { externalId: true },
    });
    expect(stored.map((s) => s.externalId).sort()).toEqual(expected.map((s) => s.externalId).sort());
    for (const session of expected) {
      const row = await db.prisma.session.findFirstOrThrow({
        where: { format: "openai-agents", externalId: session.externalId },
      });
      const full = (await getSession(db.prisma, row.id))!;
      expect(full.events.map(toSessionEvent)).toEqual(asStored(session.events));
      expect(row.title).toBe(session.title);
      expect(row.metadata).toEqual(session.metadata);
      expect(row.startedAt?.toISOString() ?? null).toBe(session.startedAt);
      expect(row.endedAt?.toISOString() ?? null).toBe(session.endedAt);
      expect(full.agent.name).toBe(session.agent.name);
      const summary = summarize(session.events);
      expect({
        eventCount: row.eventCount,
        modelCallCount: row.modelCallCount,
        toolCallCount: row.toolCallCount,
        errorCount: row.errorCount,
        inputTokens: row.inputTokens,
        outputTokens: row.outputTokens,
        costUsd: row.costUsd,
        toolNames: row.toolNames,
        status: row.status,
      }).toEqual(summary);
      expect(row.searchText).toBe(searchTextFor(session));
    }
  }

  it("a group sent as exports equals the one-shot mapping after every export, whatever the split, order, resends and early copies", async () => {
    let incremental = 0;
    let exports = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 600_000 })), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.boolean(),
        async (starts, grouped, seed, natural) => {
          const items = runsOf(`prop-${engine}-${tag++}`, starts, grouped);
          const sent: AgentsItem[] = [];
          for (const batch of exportsOf(items, seed, natural)) {
            const result = ok(await ingestAgentsItems(db.prisma, batch));
            exports++;
            if (result.incremental) incremental++;
            sent.push(...batch);
            await expectSessionsOf(sent);
          }
        },
      ),
      { numRuns: engine === "pglite" ? 30 : 6, seed: 15 },
    );
    // The property held on the incremental path, not only on the full rebuild it falls back to.
    expect(incremental).toBeGreaterThan(exports / 4);
  });

  it("in an exporter's order, every export after the group's first is incremental", async () => {
    const group = `order-${engine}`;
    const items = runsOf(group, [0, 60_000, 120_000, 180_000, 240_000], [true, true, true, true, true]);
    const paths: boolean[] = [];
    const ordered = exporterOrder(items);
    for (let i = 0; i < ordered.length; i += 4)
      paths.push(ok(await ingestAgentsItems(db.prisma, ordered.slice(i, i + 4))).incremental);
    const sent = ordered;
    expect(paths[0]).toBe(false);
    expect(paths.slice(1).every(Boolean)).toBe(true);
    await expectSessionsOf(sent);
  });

  it("a session written whole gets its aggregate from its rows on its next export, and an ended copy replaces an early one", async () => {
    const group = `whole-${engine}`;
    const items = runsOf(group, [0, 60_000, 120_000], [true, true, true]);
    const last = items.filter((i) => i.object === "trace.span").at(-1)!;
    const rest = items.filter((i) => i !== last);
    const early = { ...last, endedAt: null } as AgentsItem;
    // One export: the full rebuild writes the session, with no aggregate.
    expect(ok(await ingestAgentsItems(db.prisma, [...rest, early])).incremental).toBe(false);
    const before = fallbacks.get("agents: a group without a session yet") ?? 0;
    const result = ok(await ingestAgentsItems(db.prisma, [last]));
    expect(result).toMatchObject({ incremental: true, inserted: 0, updated: 1 });
    expect(fallbacks.get("agents: a group without a session yet") ?? 0).toBe(before);
    await expectSessionsOf(items);
    const row = await db.prisma.session.findFirstOrThrow({
      where: { format: "openai-agents", externalId: `group:${group}` },
      select: { traceState: true },
    });
    expect(row.traceState).toMatchObject({ agents: { spans: rest.length - 3 + 1, open: 0 }, incomplete: 0 });
  });

  it("a trace item after its spans moves the trace into its group by the full rebuild, and the next export is incremental again", async () => {
    const group = `late-trace-${engine}`;
    const items = runsOf(group, [0, 60_000], [true, true]);
    const [first, second] = [
      items.filter((i) => i.object === "trace")[0]!,
      items.filter((i) => i.object === "trace")[1]!,
    ];
    const spansOf = (t: AgentsItem) => items.filter((i) => i.object === "trace.span" && i.traceId === t.id);
    ok(await ingestAgentsItems(db.prisma, [first, ...spansOf(first)]));
    const regroupings = fallbacks.get("agents: regrouping") ?? 0;
    ok(await ingestAgentsItems(db.prisma, spansOf(second)));
    await expectSessionsOf([first, ...spansOf(first), ...spansOf(second)]);
    expect(ok(await ingestAgentsItems(db.prisma, [second])).incremental).toBe(false);
    expect(fallbacks.get("agents: regrouping")).toBe(regroupings + 1);
    await expectSessionsOf(items);
    const again = runsOf(group, [0, 60_000, 120_000], [true, true, true]).slice(items.length);
    expect(ok(await ingestAgentsItems(db.prisma, again)).incremental).toBe(true);
    await expectSessionsOf([...items, ...again]);
  });

  it("a group whose session has a replay takes the full rebuild: the session is kept as it was, and the new one is exact", async () => {
    const group = `replayed-${engine}`;
    const items = runsOf(group, [0, 60_000], [true, true]);
    const firstRun = items.filter((i) => (i.object === "trace" ? i.id : i.traceId).includes(`${group}_0_`));
    const first = ok(await ingestAgentsItems(db.prisma, firstRun));
    const kept = first.sessions[0]!;
    const eventsBefore = (await getSession(db.prisma, kept.id))!.events.map(toSessionEvent);
    await db.prisma.replay.create({
      data: { sessionId: kept.id, policySnapshot: {}, policyHash: "h", status: "completed" },
    });
    const withReplays = fallbacks.get("agents: a session with replays") ?? 0;
    const second = ok(
      await ingestAgentsItems(
        db.prisma,
        items.filter((i) => !firstRun.includes(i)),
      ),
    );
    expect(second.incremental).toBe(false);
    expect(fallbacks.get("agents: a session with replays")).toBe(withReplays + 1);
    expect(second.sessions.map((s) => s.id)).not.toContain(kept.id);
    expect((await getSession(db.prisma, kept.id))!.events.map(toSessionEvent)).toEqual(eventsBefore);
    await expectSessionsOf(items);
  });
});
