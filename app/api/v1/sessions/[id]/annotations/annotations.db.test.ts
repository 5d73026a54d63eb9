import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db";
import { listSessions } from "@/lib/db/session-list";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { localAdmin } from "@/lib/server/principal";
import { importSession, keysByRole, refundCopy } from "@/lib/server/testing";
import { SessionListQuery } from "@/lib/session-list/query";
import { DELETE } from "./[annotationId]/route";
import { GET, POST } from "./route";

// /api/v1/sessions/:id/annotations: add (signed by the key's user), list oldest first, filter the session list by
// label, delete one's own (an admin: any); every bad field a 400 naming it, nothing written.

type Answer = {
  annotation: Record<string, unknown> & { id: string; comment: string | null };
  error: { message: string; issues: { path: string; message: string }[] };
};

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("annotations on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let other: string;
  let keys: Record<"admin" | "ana" | "bob" | "viewer", string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    sessionId = await importSession(db.prisma, localAdmin("tester"), refundCopy("annotated"));
    other = await importSession(db.prisma, localAdmin("tester"), refundCopy("not-annotated"));
    keys = await keysByRole(db.prisma, { ana: "analyst", bob: "analyst", viewer: "viewer" });
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  const headers = (who: keyof typeof keys) => ({
    authorization: `Bearer ${keys[who]}`,
    host: "127.0.0.1:3000",
    "content-type": "application/json",
  });
  const url = (id = sessionId) => `http://127.0.0.1/api/v1/sessions/${id}/annotations`;
  async function post(who: keyof typeof keys, body: string, id = sessionId) {
    const res = await POST(new Request(url(id), { method: "POST", headers: headers(who), body }), {
      params: Promise.resolve({ id }),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  }
  async function list(id = sessionId) {
    const res = await GET(new Request(url(id), { headers: headers("viewer") }), { params: Promise.resolve({ id }) });
    return { status: res.status, body: (await res.json()) as { annotations: Record<string, unknown>[] } };
  }
  async function remove(who: keyof typeof keys, annotationId: string, id = sessionId) {
    const res = await DELETE(new Request(`${url(id)}/${annotationId}`, { method: "DELETE", headers: headers(who) }), {
      params: Promise.resolve({ id, annotationId }),
    });
    return res.status;
  }

  it("adds annotations signed by their authors, lists them oldest first, and the list filters by label", async () => {
    const first = await post(
      "ana",
      JSON.stringify({ label: "  wrong refund ", score: 0.25, seq: 3, comment: "Refunded twice." }),
    );
    expect(first.status).toBe(201);
    expect(first.body.annotation).toEqual({
      id: expect.any(String) as unknown,
      seq: 3,
      label: "wrong refund",
      score: 0.25,
      comment: "Refunded twice.",
      author: "ana@example.test",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    const second = await post("bob", JSON.stringify({ comment: "Agreed: the order was refunded already." }));
    expect(second.status).toBe(201);
    const { body } = await list();
    expect(body.annotations.map((a) => [a.author, a.label, a.score, a.seq, a.comment])).toEqual([
      ["ana@example.test", "wrong refund", 0.25, 3, "Refunded twice."],
      ["bob@example.test", null, null, null, "Agreed: the order was refunded already."],
    ]);
    expect((await list(other)).body.annotations).toEqual([]);
    const labelled = await listSessions(db.prisma, SessionListQuery.parse({ label: "wrong refund" }));
    expect(labelled.sessions.map((s) => s.id)).toEqual([sessionId]);
    expect((await listSessions(db.prisma, SessionListQuery.parse({ label: "wrong" }))).sessions).toEqual([]);
  });

  it("refuses what cannot be an annotation with the field that was wrong, and writes nothing", async () => {
    const before = await db.prisma.annotation.count();
    const cases: [string, number, string, string][] = [
      ["{}", 400, "label", "Give a label, a score or a comment."],
      ['{"label":"   "}', 400, "label", "label is empty."],
      [JSON.stringify({ label: "x".repeat(65) }), 400, "label", "label is at most 64 characters."],
      ['{"label":"a\\u0000b"}', 400, "label", "label holds a character that cannot be stored."],
      ['{"score":1e309}', 400, "score", ""],
      ['{"score":"high"}', 400, "score", "score must be a number."],
      ['{"seq":-1,"label":"x"}', 400, "seq", "step must be 0 or more."],
      ['{"seq":1.5,"label":"x"}', 400, "seq", "step must be a whole number."],
      ['{"label":"x","__proto__":{"admin":true}}', 400, "", ""],
      ['{"label":"x","author":"someone else"}', 400, "", ""],
    ];
    for (const [body, status, path, message] of cases) {
      const res = await post("ana", body);
      expect(res.status, body).toBe(status);
      const issue = res.body.error.issues[0];
      if (path) expect(issue?.path, body).toBe(path);
      if (message) expect(issue?.message, body).toBe(message);
    }
    // A step past the session's last, and a session that does not exist.
    const steps = (await db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } })).eventCount;
    const past = await post("ana", JSON.stringify({ seq: steps, label: "x" }));
    expect([past.status, past.body.error.message]).toEqual([
      400,
      `This session has no step ${steps}: its steps are 0 to ${steps - 1}.`,
    ]);
    expect((await post("ana", '{"label":"x"}', "no-such-session")).status).toBe(404);
    // A viewer reads but does not annotate.
    expect((await post("viewer", '{"label":"x"}')).status).toBe(403);
    expect(await db.prisma.annotation.count()).toBe(before);
  });

  it("stores a comment cut mid-emoji with the broken character replaced, as every input is", async () => {
    const cut = await post("ana", '{"comment":"half \\ud83d emoji"}', other);
    expect([cut.status, cut.body.annotation.comment]).toEqual([201, "half \uFFFD emoji"]);
  });

  it("deletes an annotation for its author or an admin only", async () => {
    const mine = (await post("ana", '{"label":"to delete"}')).body.annotation.id;
    const bobs = (await post("bob", '{"label":"bob says"}')).body.annotation.id;
    expect(await remove("bob", mine)).toBe(403);
    expect(await remove("viewer", mine)).toBe(403);
    expect(await remove("ana", mine, other)).toBe(404);
    expect(await remove("ana", mine)).toBe(204);
    expect(await remove("ana", mine)).toBe(404);
    expect(await remove("admin", bobs)).toBe(204);
    expect((await list()).body.annotations.map((a) => a.label)).toEqual(["wrong refund", null]);
  });
});
