import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { deleteSession } from "@/lib/db/traces";
import { localAdmin } from "@/lib/server/principal";
import { completeReview, getReviewPage } from "@/lib/server/reviews/reviews";
import { importSession, keysByRole, refundCopy } from "@/lib/server/testing";
import { DELETE as DELETE_QUEUE, GET as GET_QUEUE } from "./[id]/route";
import { PATCH } from "./[id]/items/[itemId]/route";
import { GET as GET_ITEMS, POST as POST_ITEMS } from "./[id]/items/route";
import { GET, POST } from "./route";

// /api/v1/review-queues: make a queue, add sessions (idempotently, assigned or not), list them in the order added,
// work through them (done needs the reviewer's annotation; skip), counts per status and "mine"; viewers read only;
// a deleted session leaves its queues; bad input is a 400 naming the field, with nothing written.

type Json = Record<string, unknown>;
type Counts = { total: number; pending: number; done: number; skipped: number; mine: number };
type Queue = { id: string; name: string; counts: Counts } & Json;
type Item = { id: string; sessionId: string; status: string; assignee: string | null } & Json;
type ErrorBody = { error: { code: string; message: string; issues: { path: string; message: string }[] } };

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
type Who = "admin" | "ana" | "bob" | "viewer";

describe.each(TEST_ENGINES)("review queues on %s", (engine) => {
  let db: TestDatabase;
  const sessions: string[] = [];
  let keys: Record<Who, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    for (const n of [1, 2, 3, 4])
      sessions.push(await importSession(db.prisma, localAdmin("tester"), refundCopy(`rq-${n}`)));
    keys = await keysByRole(db.prisma, { ana: "analyst", bob: "analyst", viewer: "viewer" });
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  const base = "http://127.0.0.1/api/v1/review-queues";
  const headers = (w: Who) => ({
    authorization: `Bearer ${keys[w]}`,
    host: "127.0.0.1:3000",
    "content-type": "application/json",
  });
  const ctx = <P>(params: P) => ({ params: Promise.resolve(params) });
  async function answer<T>(res: Response) {
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T & ErrorBody };
  }
  const createQueue = async (w: Who, body: unknown) =>
    answer<{ queue: Queue }>(
      await POST(new Request(base, { method: "POST", headers: headers(w), body: JSON.stringify(body) }), ctx({})),
    );
  const listQueues = async (w: Who) =>
    answer<{ queues: Queue[] }>(await GET(new Request(base, { headers: headers(w) }), ctx({})));
  const getQueue = async (w: Who, id: string) =>
    answer<{ queue: Queue }>(await GET_QUEUE(new Request(`${base}/${id}`, { headers: headers(w) }), ctx({ id })));
  const deleteQueue = async (w: Who, id: string) =>
    (await DELETE_QUEUE(new Request(`${base}/${id}`, { method: "DELETE", headers: headers(w) }), ctx({ id }))).status;
  const addItems = async (w: Who, id: string, body: unknown) =>
    answer<{ added: number; alreadyQueued: number; queue: Queue }>(
      await POST_ITEMS(
        new Request(`${base}/${id}/items`, {
          method: "POST",
          headers: headers(w),
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
        ctx({ id }),
      ),
    );
  const listItems = async (w: Who, id: string, query = "") =>
    answer<{ items: Item[]; nextCursor: string | null }>(
      await GET_ITEMS(new Request(`${base}/${id}/items${query}`, { headers: headers(w) }), ctx({ id })),
    );
  const patchItem = async (w: Who, id: string, itemId: string, body: unknown) =>
    answer<{ item: Item }>(
      await PATCH(
        new Request(`${base}/${id}/items/${itemId}`, {
          method: "PATCH",
          headers: headers(w),
          body: JSON.stringify(body),
        }),
        ctx({ id, itemId }),
      ),
    );
  const annotate = (sessionId: string, authorId: string, label: string) =>
    db.prisma.annotation.create({ data: { sessionId, label, author: `${authorId}@example.test`, authorId } });

  it("makes a queue, adds sessions once each in the order given, and counts them per status and per assignee", async () => {
    const made = await createQueue("ana", {
      name: "  Refund triage ",
      description: "Did the agent refund twice?",
      labels: ["correct", "wrong refund", "correct"],
      askScore: true,
    });
    expect(made.status).toBe(201);
    expect(made.body.queue).toEqual({
      id: expect.any(String) as unknown,
      name: "Refund triage",
      description: "Did the agent refund twice?",
      labels: ["correct", "wrong refund"],
      askScore: true,
      createdBy: "ana@example.test",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      counts: { total: 0, pending: 0, done: 0, skipped: 0, mine: 0 },
    });
    const q = made.body.queue.id;
    const [s1, s2, s3, s4] = sessions as [string, string, string, string];

    const first = await addItems("ana", q, { sessionIds: [s3, s1, s3] });
    expect([first.status, first.body.added, first.body.alreadyQueued]).toEqual([200, 2, 0]);
    const assigned = await addItems("bob", q, { sessionIds: [s1, s2, s4], assigneeEmail: " BOB@example.test " });
    expect([assigned.body.added, assigned.body.alreadyQueued]).toEqual([2, 1]);
    expect(assigned.body.queue.counts).toEqual({ total: 4, pending: 4, done: 0, skipped: 0, mine: 2 });
    // Adding again changes nothing: s1 keeps no assignee and the one who added it.
    const again = await addItems("admin", q, { sessionIds: [s1, s2, s3, s4] });
    expect([again.body.added, again.body.alreadyQueued]).toEqual([0, 4]);

    const { body } = await listItems("viewer", q);
    expect(body.items.map((i) => [i.sessionId, i.status, i.assignee, i.addedBy])).toEqual([
      [s3, "pending", null, "ana@example.test"],
      [s1, "pending", null, "ana@example.test"],
      [s2, "pending", "bob@example.test", "bob@example.test"],
      [s4, "pending", "bob@example.test", "bob@example.test"],
    ]);
    expect(body.nextCursor).toBeNull();
    // Pages of two, continued by the cursor.
    const page1 = await listItems("viewer", q, "?limit=2");
    expect(page1.body.items.map((i) => i.sessionId)).toEqual([s3, s1]);
    const page2 = await listItems("viewer", q, `?limit=2&cursor=${page1.body.nextCursor}`);
    expect([page2.body.items.map((i) => i.sessionId), page2.body.nextCursor]).toEqual([[s2, s4], null]);

    // Ana's next item is the first unassigned one; Bob's too (his own come after it in the order added).
    const items = body.items;
    const anaPage = await getReviewPage(
      { kind: "user", userId: "ana", name: "ana@example.test", role: "analyst", readOnly: false },
      { queueId: q },
      db.prisma,
    );
    expect(anaPage.current?.sessionId).toBe(s3);
    expect(anaPage.queue.counts).toEqual({ total: 4, pending: 4, done: 0, skipped: 0, mine: 0 });

    // Done needs the reviewer's own annotation; then it names who completed it and with which annotation.
    const early = await patchItem("ana", q, items[0]!.id, { status: "done" });
    expect([early.status, early.body.error.code]).toEqual([409, "wrong_state"]);
    expect(early.body.error.message).toBe(
      "ana@example.test has not annotated this session yet: write an annotation (a label, a score or a comment) on it, then mark it done.",
    );
    await annotate(s3, "bob", "by bob");
    expect((await patchItem("ana", q, items[0]!.id, { status: "done" })).status).toBe(409);
    const note = await annotate(s3, "ana", "correct");
    const done = await patchItem("ana", q, items[0]!.id, { status: "done" });
    expect(done.status).toBe(200);
    expect(done.body.item).toMatchObject({
      status: "done",
      completedBy: "ana@example.test",
      completedAt: expect.stringMatching(/^\d{4}-/) as unknown,
      annotationId: note.id,
    });
    const skipped = await patchItem("bob", q, items[2]!.id, { status: "skipped" });
    expect([skipped.body.item.status, skipped.body.item.completedBy]).toEqual(["skipped", "bob@example.test"]);
    // Reassigned from Bob to Ana, then to no one.
    expect((await patchItem("ana", q, items[3]!.id, { assigneeEmail: "ana@example.test" })).body.item.assignee).toBe(
      "ana@example.test",
    );
    const anaCounts = (await listQueues("ana")).body.queues.find((x) => x.id === q)!.counts;
    expect(anaCounts).toEqual({ total: 4, pending: 2, done: 1, skipped: 1, mine: 1 });
    expect((await getQueue("bob", q)).body.queue.counts).toEqual({
      total: 4,
      pending: 2,
      done: 1,
      skipped: 1,
      mine: 0,
    });
    expect((await patchItem("ana", q, items[3]!.id, { assigneeEmail: null })).body.item.assignee).toBeNull();
    // Reopened: pending again, no longer signed.
    const reopened = await patchItem("bob", q, items[2]!.id, { status: "pending" });
    expect([reopened.body.item.status, reopened.body.item.completedBy, reopened.body.item.completedAt]).toEqual([
      "pending",
      null,
      null,
    ]);
    expect((await listItems("viewer", q, "?status=done")).body.items.map((i) => i.sessionId)).toEqual([s3]);
    expect((await listItems("viewer", q, "?status=pending")).body.items.map((i) => i.sessionId)).toEqual([s1, s2, s4]);
  });

  it("completes a review from its page by writing the annotation, within the queue's labels and score", async () => {
    const ana = {
      kind: "user" as const,
      userId: "ana",
      name: "ana@example.test",
      role: "analyst" as const,
      readOnly: false,
    };
    const q = (await createQueue("ana", { name: "Scored", labels: ["good", "bad"], askScore: true })).body.queue.id;
    await addItems("ana", q, { sessionIds: [sessions[0], sessions[1]] });
    const page = await getReviewPage(ana, { queueId: q }, db.prisma);
    const itemId = page.current!.id;
    const before = await db.prisma.annotation.count();
    await expect(completeReview(ana, { queueId: q, itemId, label: "other", score: "1" }, db.prisma)).rejects.toThrow(
      "Choose one of this queue's labels: good, bad.",
    );
    await expect(completeReview(ana, { queueId: q, itemId, label: "good" }, db.prisma)).rejects.toThrow(
      "This queue asks for a score.",
    );
    expect(await db.prisma.annotation.count()).toBe(before);
    const done = await completeReview(
      ana,
      { queueId: q, itemId, label: "good", score: "0.5", comment: "Fine." },
      db.prisma,
    );
    expect([done.status, done.completedBy, done.sessionId]).toEqual(["done", "ana@example.test", sessions[0]]);
    const written = await db.prisma.annotation.findUniqueOrThrow({ where: { id: done.annotationId! } });
    expect([written.sessionId, written.label, written.score, written.comment, written.authorId]).toEqual([
      sessions[0],
      "good",
      0.5,
      "Fine.",
      "ana",
    ]);
    const next = await getReviewPage(ana, { queueId: q }, db.prisma);
    expect([next.current?.sessionId, next.queue.counts.done, next.queue.counts.total]).toEqual([sessions[1], 1, 2]);
  });

  it("refuses viewers' writes and others' deletes, and refuses bad input with the field that was wrong, writing nothing", async () => {
    const q = (await createQueue("bob", { name: "Bob's queue" })).body.queue.id;
    expect((await createQueue("viewer", { name: "Not mine" })).status).toBe(403);
    expect((await addItems("viewer", q, { sessionIds: [sessions[0]] })).status).toBe(403);
    expect((await listItems("viewer", q)).status).toBe(200);
    const itemsBefore = await db.prisma.reviewItem.count();
    const queuesBefore = await db.prisma.reviewQueue.count();

    const queueCases: [unknown, string, string][] = [
      [{}, "name", "name must be text."],
      [{ name: "   " }, "name", "name is empty."],
      [{ name: "x".repeat(101) }, "name", "name is at most 100 characters."],
      [{ name: "a\u0000b" }, "name", "name holds a character that cannot be stored."],
      [{ name: "ok", labels: "good" }, "labels", "labels must be a list of labels."],
      [{ name: "ok", labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, "labels", "At most 20 labels."],
      [{ name: "ok", askScore: "yes" }, "askScore", "askScore must be true or false."],
      [{ name: "ok", createdBy: "someone else" }, "", ""],
    ];
    for (const [body, path, message] of queueCases) {
      const res = await createQueue("ana", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (path) expect(res.body.error.issues[0]?.path, JSON.stringify(body)).toBe(path);
      if (message) expect(res.body.error.issues[0]?.message, JSON.stringify(body)).toBe(message);
    }

    const huge = Array.from({ length: 501 }, (_, i) => `s${i}`);
    const itemCases: [unknown, number, string, string][] = [
      [{ sessionIds: [] }, 400, "sessionIds", "sessionIds is empty: name at least one session."],
      [{ sessionIds: huge }, 400, "sessionIds", "sessionIds holds more than 500 sessions: add at most 500 at a time."],
      [{ sessionIds: "abc" }, 400, "sessionIds", "sessionIds must be a list of session ids."],
      [{ sessionIds: [42] }, 400, "sessionIds[0]", "a session id must be text."],
      [{ sessionIds: ["x".repeat(65)] }, 400, "sessionIds[0]", "a session id is too long."],
      [{ sessionIds: [sessions[0], "no-such-session"] }, 400, "sessionIds[1]", "no such session."],
      [
        { sessionIds: [sessions[0]], assigneeEmail: "nobody@example.test" },
        400,
        "assigneeEmail",
        "no active team member has this email.",
      ],
      ["not json", 400, "", ""],
    ];
    for (const [body, status, path, message] of itemCases) {
      const res = await addItems("ana", q, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      if (path) expect(res.body.error.issues[0]?.path, JSON.stringify(body).slice(0, 80)).toBe(path);
      if (message) expect(res.body.error.issues[0]?.message, JSON.stringify(body).slice(0, 80)).toBe(message);
    }
    const unknown = await addItems("ana", q, { sessionIds: [sessions[0], "no-such-session"] });
    expect(unknown.body.error.message).toBe('No session has the id "no-such-session": nothing was added.');
    expect((await addItems("ana", "no-such-queue", { sessionIds: [sessions[0]] })).status).toBe(404);
    expect((await getQueue("ana", "no-such-queue")).status).toBe(404);
    expect((await listItems("ana", q, "?limit=0")).status).toBe(400);
    expect((await listItems("ana", q, "?limit=201")).status).toBe(400);
    expect((await listItems("ana", q, "?status=open")).body.error.issues[0]?.message).toBe(
      "status must be pending, done or skipped.",
    );
    expect((await listItems("ana", q, "?cursor=abc")).status).toBe(400);
    expect(await db.prisma.reviewItem.count()).toBe(itemsBefore);
    expect(await db.prisma.reviewQueue.count()).toBe(queuesBefore);

    // Items of another queue, bad statuses, a viewer's patch.
    const added = await addItems("bob", q, { sessionIds: [sessions[0]] });
    expect(added.body.added).toBe(1);
    const item = (await listItems("bob", q)).body.items[0]!;
    const other = (await createQueue("ana", { name: "Other" })).body.queue.id;
    expect((await patchItem("ana", other, item.id, { status: "skipped" })).status).toBe(404);
    expect((await patchItem("ana", q, "no-such-item", { status: "skipped" })).status).toBe(404);
    expect((await patchItem("ana", q, item.id, { status: "closed" })).status).toBe(400);
    expect((await patchItem("ana", q, item.id, {})).body.error.issues[0]?.message).toBe(
      "Give a status (pending, done, skipped) or an assigneeEmail (null: no one).",
    );
    expect((await patchItem("viewer", q, item.id, { status: "skipped" })).status).toBe(403);
    expect((await listItems("bob", q)).body.items[0]!.status).toBe("pending");

    // Only its maker or an admin deletes a queue; its items go with it.
    expect(await deleteQueue("viewer", q)).toBe(403);
    expect(await deleteQueue("ana", q)).toBe(403);
    expect(await deleteQueue("bob", q)).toBe(204);
    expect(await deleteQueue("bob", q)).toBe(404);
    expect(await deleteQueue("admin", other)).toBe(204);
    expect(await db.prisma.reviewItem.count({ where: { queueId: q } })).toBe(0);
  });

  it("drops a deleted session from every queue it was in, and its counts", async () => {
    const extra = await importSession(db.prisma, localAdmin("tester"), refundCopy("rq-doomed"));
    const q = (await createQueue("ana", { name: "Doomed" })).body.queue.id;
    await addItems("ana", q, { sessionIds: [extra, sessions[0]] });
    expect((await getQueue("ana", q)).body.queue.counts.total).toBe(2);
    await deleteSession(db.prisma, extra);
    expect((await getQueue("ana", q)).body.queue.counts).toEqual({
      total: 1,
      pending: 1,
      done: 0,
      skipped: 0,
      mine: 0,
    });
    expect((await listItems("ana", q)).body.items.map((i) => i.sessionId)).toEqual([sessions[0]]);
  });
});
