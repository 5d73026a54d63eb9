import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { keysByRole } from "@/lib/server/testing";
import { DELETE } from "./[commentId]/route";
import { GET, POST } from "./route";

// /api/v1/reports/:id/comments: comments signed by the key's user, oldest first, deleted by their author or an
// admin; a bad body is a 400 naming the field, and writes nothing.

type Answer = {
  comment: { id: string; body: string; author: string; createdAt: string };
  error: { message: string; issues: { path: string; message: string }[] };
};

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

describe.each(TEST_ENGINES)("comments on reports on %s", (engine) => {
  let db: TestDatabase;
  let reportId: string;
  let keys: Record<"admin" | "ana" | "bob" | "viewer", string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    reportId = (
      await db.prisma.report.create({ data: { title: "Why the refund went out twice", sections: {}, snapshot: {} } })
    ).id;
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
  const url = (id = reportId) => `http://127.0.0.1/api/v1/reports/${id}/comments`;
  async function post(who: keyof typeof keys, body: string, id = reportId) {
    const res = await POST(new Request(url(id), { method: "POST", headers: headers(who), body }), {
      params: Promise.resolve({ id }),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  }
  async function list() {
    const res = await GET(new Request(url(), { headers: headers("viewer") }), {
      params: Promise.resolve({ id: reportId }),
    });
    return (await res.json()) as { comments: Answer["comment"][] };
  }
  async function remove(who: keyof typeof keys, commentId: string, id = reportId) {
    const res = await DELETE(new Request(`${url(id)}/${commentId}`, { method: "DELETE", headers: headers(who) }), {
      params: Promise.resolve({ id, commentId }),
    });
    return res.status;
  }

  it("adds comments signed by their authors and lists them oldest first", async () => {
    const first = await post("ana", JSON.stringify({ body: "  The stale invoice was the cause.\n" }));
    expect(first.status).toBe(201);
    expect(first.body.comment).toEqual({
      id: expect.any(String) as unknown,
      body: "The stale invoice was the cause.",
      author: "ana@example.test",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    expect((await post("bob", '{"body":"Agreed."}')).status).toBe(201);
    expect((await list()).comments.map((c) => [c.author, c.body])).toEqual([
      ["ana@example.test", "The stale invoice was the cause."],
      ["bob@example.test", "Agreed."],
    ]);
  });

  it("refuses a bad comment with the field that was wrong, and writes nothing", async () => {
    const before = await db.prisma.reportComment.count();
    for (const [body, status, message] of [
      ["{}", 400, "comment must be text."],
      ['{"body":"  "}', 400, "comment is empty."],
      [JSON.stringify({ body: "x".repeat(4001) }), 400, "comment is at most 4000 characters."],
      ['{"body":"a\\u0000b"}', 400, "comment holds a character that cannot be stored."],
      ['{"body":"x","author":"someone else"}', 400, ""],
    ] as const) {
      const res = await post("ana", body);
      expect(res.status, body).toBe(status);
      if (message) expect(res.body.error.issues[0]?.message, body).toBe(message);
    }
    expect((await post("ana", '{"body":"x"}', "no-such-report")).status).toBe(404);
    expect((await post("viewer", '{"body":"x"}')).status).toBe(403);
    expect(await db.prisma.reportComment.count()).toBe(before);
  });

  it("deletes a comment for its author or an admin only", async () => {
    const mine = (await post("ana", '{"body":"to delete"}')).body.comment.id;
    const bobs = (await post("bob", '{"body":"bob says"}')).body.comment.id;
    expect(await remove("bob", mine)).toBe(403);
    expect(await remove("viewer", mine)).toBe(403);
    expect(await remove("ana", mine, "another-report")).toBe(404);
    expect(await remove("ana", mine)).toBe(204);
    expect(await remove("ana", mine)).toBe(404);
    expect(await remove("admin", bobs)).toBe(204);
    expect((await list()).comments.map((c) => c.body)).toEqual(["The stale invoice was the cause.", "Agreed."]);
  });
});
