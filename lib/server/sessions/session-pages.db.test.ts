import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAndSave } from "@/lib/server/ingest/imports";
import { sessionEvents } from "@/lib/db/session-reads";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { longChatLog } from "@/lib/ingest/long-chat";
import { buildConversation, type ChatItem } from "@/lib/session-view/conversation";
import { summarizeStep } from "@/lib/session-view/steps";
import { buildTimeline } from "@/lib/session-view/timeline";
import * as pages from "./session-pages";
import { demoDatabase, refusal, viewer } from "../testing";

/** A chat item without its key (keys are unique per window, not across them). */
const plain = (items: ChatItem[]) => items.map(({ key: _key, ...rest }) => rest);

describe.each(TEST_ENGINES)("sessions a window at a time on %s", (engine) => {
  let db: TestDatabase;
  let ids: string[] = [];
  let longId = "";

  beforeAll(async () => {
    db = await demoDatabase(engine);
    const long = await importAndSave(db.prisma, JSON.stringify(longChatLog(120)), { format: "openai-chat" });
    if (!long.ok) throw new Error("import failed");
    longId = long.sessions[0]!.id;
    ids = (await db.prisma.session.findMany({ where: { isReplay: false }, select: { id: true } })).map((s) => s.id);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  async function allWindows<T>(
    sessionId: string,
    limit: number,
    read: typeof pages.listSessionSteps | typeof pages.readSessionConversation,
    pick: (page: Awaited<ReturnType<typeof read>>) => T[],
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: number | undefined;
    for (let n = 0; n < 10_000; n++) {
      const page = await read(viewer, { sessionId, ...(cursor === undefined ? {} : { cursor }), limit }, db.prisma);
      out.push(...pick(page));
      if (page.nextCursor === null) return out;
      cursor = page.nextCursor;
    }
    throw new Error("no end");
  }

  it("windows of any size give every step once, each summary as the whole step would make it", async () => {
    // Windows of one step (a read per step) on the two longest demo sessions; of 7 and 50 on every session.
    const counts = await db.prisma.session.findMany({
      where: { id: { in: ids } },
      select: { id: true, eventCount: true },
    });
    const longest = new Set(
      counts
        .sort((a, b) => b.eventCount - a.eventCount || a.id.localeCompare(b.id))
        .slice(0, 2)
        .map((s) => s.id),
    );
    for (const id of [...ids, longId]) {
      const events = await sessionEvents(db.prisma, id);
      const expected = events.map((e) => {
        const messages = (e.input as { messages?: unknown[] } | null)?.messages;
        return summarizeStep(e, e.kind === "model_call" && Array.isArray(messages) ? messages.length : null);
      });
      for (const limit of id === longId ? [7, 50, 500] : longest.has(id) ? [1, 7, 50] : [7, 50]) {
        const windows = await allWindows(id, limit, pages.listSessionSteps, (p) => ("steps" in p ? [p.steps] : []));
        expect(windows.flat().sort((a, b) => a.seq - b.seq)).toEqual(expected);
        // A model call's tool calls come in its window: each window groups them as the whole session does.
        const shape = (nodes: ReturnType<typeof buildTimeline<(typeof expected)[number]>>) =>
          nodes.map((n) => [n.event.seq, n.children.map((c) => c.seq)]);
        expect(windows.flatMap((w) => shape(buildTimeline(w)))).toEqual(shape(buildTimeline(expected)));
      }
    }
  });

  it("the conversation read a window at a time equals the whole session's", async () => {
    for (const id of [...ids, longId]) {
      const whole = plain(buildConversation(await sessionEvents(db.prisma, id)));
      for (const limit of [3, 50]) {
        const items = await allWindows(id, limit, pages.readSessionConversation, (p) => ("items" in p ? p.items : []));
        expect(plain(items)).toEqual(whole);
      }
    }
  });

  it("a step opened whole has its full input; search counts over the whole session", async () => {
    const events = await sessionEvents(db.prisma, longId);
    const last = events.filter((e) => e.kind === "model_call").at(-1)!;
    expect(await pages.getSessionStep(viewer, { sessionId: longId, seq: last.seq }, db.prisma)).toEqual(last);

    const all = await pages.searchSession(viewer, { sessionId: longId, q: "a", in: "names" }, db.prisma);
    expect(all.total).toBe(events.length);
    const tool = events.find((e) => e.kind === "tool_call")!;
    const byName = await pages.searchSession(viewer, { sessionId: longId, q: tool.name, in: "names" }, db.prisma);
    expect(byName.matches).toBe(events.filter((e) => e.name.toLowerCase().includes(tool.name.toLowerCase())).length);
    const chat = await pages.searchSession(viewer, { sessionId: longId, q: "zz-no-such-text", in: "chat" }, db.prisma);
    expect(chat).toMatchObject({ matches: 0, items: [], total: buildConversation(events).length });
    const steps = await pages.searchSession(viewer, { sessionId: longId, q: tool.name, in: "steps" }, db.prisma);
    expect(steps.total).toBe(buildTimeline(events).length);
    expect(steps.steps.length).toBeLessThanOrEqual(events.length);
  });

  it("bad windows and unknown records are refused with what was wrong", async () => {
    expect((await refusal(pages.listSessionSteps(viewer, { sessionId: longId, limit: 0 }, db.prisma))).code).toBe(
      "invalid_input",
    );
    expect((await refusal(pages.listSessionSteps(viewer, { sessionId: longId, limit: 501 }, db.prisma))).code).toBe(
      "invalid_input",
    );
    expect((await refusal(pages.readSessionConversation(viewer, { sessionId: "nope" }, db.prisma))).code).toBe(
      "not_found",
    );
    const missing = await refusal(pages.getSessionStep(viewer, { sessionId: longId, seq: 999_999 }, db.prisma));
    expect([missing.code, missing.message]).toEqual(["not_found", `Session "${longId}" has no step 999999.`]);
    expect((await refusal(pages.searchSession(viewer, { sessionId: longId, q: "  " }, db.prisma))).code).toBe(
      "invalid_input",
    );
    // Past the end: an empty window, no next one.
    expect(await pages.listSessionSteps(viewer, { sessionId: longId, cursor: 999_999 }, db.prisma)).toEqual({
      cursor: 999_999,
      nextCursor: null,
      steps: [],
    });
    // Before the start (down to the lowest the API takes): the first window, the same as no cursor.
    const first = await pages.listSessionSteps(viewer, { sessionId: longId, limit: 3 }, db.prisma);
    expect(first.cursor).toBe(0);
    for (const cursor of [-1, -2_147_483_648]) {
      expect(await pages.listSessionSteps(viewer, { sessionId: longId, cursor, limit: 3 }, db.prisma)).toEqual(first);
    }
  });
});
