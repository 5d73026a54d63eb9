import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { seedDefaultPrices } from "@/lib/db/prices";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { localAdmin } from "@/lib/server/principal";
import { runPlayground, MAX_PLAYGROUND_CHARS } from "@/lib/server/playground/playground";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { importSession, refundCopy, refusal } from "@/lib/server/testing";
import { REFUND_SESSION, startScriptedModel, type ChatRequest, type ScriptedModel } from "@/scripts/scripted-model";
import { POST } from "./route";

// POST /api/v1/playground/runs: a recorded model call sent again, edited, to a real HTTP model server on 127.0.0.1
// (it stands in for the provider) or to the built-in demo model on demo data; the answer, its usage, latency and
// cost; every refusal (not allowed, refused, timed out, bad input) named, and nothing sent when the input is refused.

type Answer = {
  run: {
    endpoint: { id: string; name: string };
    model: string;
    output: unknown;
    usage: { inputTokens: number | null; outputTokens: number | null };
    costMicros: number | null;
    durationMs: number;
    sent: { messages: number; tools: number; temperature: number | null };
  };
  error: { code: string; message: string; issues: { path: string; message: string }[] };
};

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

/** Says back the last user message: an edit to it shows in the answer. */
const echo = (request: ChatRequest) => {
  const last = [...request.messages].reverse().find((m) => m.role === "user");
  if (last?.content === "fail please") return { status: 500, body: '{"error":{"message":"overloaded"}}' };
  return { content: `echo: ${last?.content ?? ""}` };
};

describe.each(TEST_ENGINES)("the playground on %s", (engine) => {
  let db: TestDatabase;
  let demoId: string;
  let importedId: string;
  let model: ScriptedModel;
  let slow: ScriptedModel;
  let release: () => void = () => undefined;
  const keys = { admin: "", viewer: "" };

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    await loadDemoData(db.prisma);
    demoId = (
      await db.prisma.session.findFirstOrThrow({
        where: { demo: true, title: "Refund for cracked pour-over set (order 4821)" },
      })
    ).id;
    importedId = await importSession(db.prisma, localAdmin("tester"), refundCopy("playground-imported"));
    await seedDefaultPrices(db.prisma);
    keys.admin = (await createApiKey(db.prisma, "script")).key;
    await db.prisma.user.create({ data: { id: "vic", name: "vic", email: "vic@example.test", role: "viewer" } });
    keys.viewer = (await createApiKey(db.prisma, "vic", { userId: "vic" })).key;
    model = await startScriptedModel({ script: echo, model: "gpt-4.1-2025-04-14" });
    const gate = new Promise<void>((resolve) => (release = resolve));
    slow = await startScriptedModel({ script: echo, gate: () => gate });
    global.__branchpointDb = Promise.resolve(db);
  }, 120_000);
  afterAll(async () => {
    global.__branchpointDb = undefined;
    release();
    await model?.close();
    await slow?.close();
    await db?.drop();
  });

  async function post(body: unknown, who: keyof typeof keys = "admin") {
    const res = await POST(
      new Request("http://127.0.0.1/api/v1/playground/runs", {
        method: "POST",
        headers: { authorization: `Bearer ${keys[who]}`, host: "127.0.0.1:3000", "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
      { params: Promise.resolve({}) },
    );
    return { status: res.status, body: (await res.json()) as Answer };
  }

  /** The demo run's model step 5 (after "Yes please, go ahead.") with its last user message replaced. */
  async function editedMessages(sessionId: string, text: string) {
    const event = await db.prisma.event.findFirstOrThrow({ where: { sessionId, seq: 0 } });
    const first = (event.input as { messages: { role: string; content: string }[] }).messages;
    return [...first.slice(0, 1), { role: "user", content: text }];
  }

  it("answers a demo model step on the built-in demo model with nothing configured, as recorded", async () => {
    const { status, body } = await post({ sessionId: demoId, step: 5 });
    expect(status).toBe(200);
    expect(body.run).toMatchObject({
      endpoint: { id: "builtin:demo-model", name: "Demo model (scripted)" },
      model: "Demo model (scripted)",
      output: {
        role: "assistant",
        content: null,
        toolCalls: [{ id: REFUND_SESSION.refundCallId, name: "refund_payment", args: REFUND_SESSION.refundArgs }],
      },
      usage: { inputTokens: 100, outputTokens: 20 },
      costMicros: null,
      sent: { messages: 7, tools: 3, temperature: 0.2 },
    });
    // The demo model serves only demo data.
    const other = await post({ sessionId: importedId, step: 5, endpointId: "builtin:demo-model" });
    expect(other.status).toBe(400);
    expect(other.body.error.issues).toEqual([
      { path: "modelEndpoint", message: "the demo model serves only demo data" },
    ]);
  });

  it("sends the edited request to a configured endpoint and answers what it said, with usage and cost", async () => {
    const endpoint = await db.prisma.modelEndpoint.create({
      data: { name: "echo", baseUrl: model.baseUrl, model: "gpt-4.1-2025-04-14" },
    });
    await db.prisma.allowedHost.create({ data: { host: model.host } });
    const messages = await editedMessages(importedId, "Actually, do not refund it.");
    const tools = [{ name: "lookup_order", parameters: { type: "object" } }];
    const { status, body } = await post({
      sessionId: importedId,
      step: 5,
      endpointId: "echo",
      request: { messages, tools, temperature: 0.7 },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.run).toMatchObject({
      endpoint: { id: endpoint.id, name: "echo" },
      model: "gpt-4.1-2025-04-14",
      output: { role: "assistant", content: "echo: Actually, do not refund it." },
      usage: { inputTokens: 100, outputTokens: 20 },
      // 100 input tokens at $2.00 and 20 output tokens at $8.00 a million: 200 + 160 micro-dollars.
      costMicros: 360,
      sent: { messages: 2, tools: 1, temperature: 0.7 },
    });
    expect(body.run.durationMs).toBeGreaterThanOrEqual(0);
    expect(model.requests.at(-1)).toEqual({
      model: "gpt-4.1-2025-04-14",
      messages: [
        { role: "system", content: messages[0]!.content },
        { role: "user", content: "Actually, do not refund it." },
      ],
      temperature: 0.7,
      tools: [{ type: "function", function: { name: "lookup_order", parameters: { type: "object" } } }],
    });
    // temperature null: none is sent; fields not given go as recorded.
    const plain = await post({
      sessionId: importedId,
      step: 0,
      endpointId: endpoint.id,
      request: { temperature: null },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.run.output).toEqual({ role: "assistant", content: `echo: ${await firstUserText()}` });
    expect("temperature" in model.requests.at(-1)!).toBe(false);
    expect(model.requests.at(-1)!.tools).toHaveLength(3);
  });

  async function firstUserText() {
    const event = await db.prisma.event.findFirstOrThrow({ where: { sessionId: importedId, seq: 0 } });
    return (event.input as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === "user")!
      .content;
  }

  it("names each refusal: not allowed, refused by the endpoint, timed out, no such step, a viewer", async () => {
    const before = model.requests.length;
    const off = await db.prisma.modelEndpoint.create({
      data: { name: "off-list", baseUrl: "http://127.0.0.1:9/v1", model: "gpt-4.1" },
    });
    const notAllowed = await post({ sessionId: importedId, step: 0, endpointId: off.id });
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body.error).toEqual({
      code: "executor_missing",
      message:
        'Host "127.0.0.1:9" of model endpoint "off-list" is not on the executor allow-list (Settings → Executors); the call was refused.',
      issues: [{ path: "endpointId", message: "host_not_allowed" }],
    });

    const refused = await post({
      sessionId: importedId,
      step: 0,
      endpointId: "echo",
      request: { messages: [{ role: "user", content: "fail please" }] },
    });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toEqual({
      code: "run_failed",
      message: `http://${model.host}/v1/chat/completions answered HTTP 500: "{"error":{"message":"overloaded"}}"`,
      issues: [{ path: "endpointId", message: "http_error" }],
    });

    const late = await db.prisma.modelEndpoint.create({ data: { name: "late", baseUrl: slow.baseUrl, model: "m" } });
    await db.prisma.allowedHost.create({ data: { host: slow.host } });
    const timedOut = await refusal(
      runPlayground(localAdmin("t"), { sessionId: importedId, step: 0, endpointId: late.id }, db.prisma, {
        timeoutMs: 300,
      }),
      "run_failed",
    );
    expect(timedOut.message).toBe(`http://${slow.host}/v1/chat/completions did not answer within 300 ms.`);
    expect(timedOut.issues).toEqual([{ path: "endpointId", message: "timeout" }]);

    expect((await post({ sessionId: importedId, step: 1, endpointId: "echo" })).body.error).toMatchObject({
      code: "invalid_input",
      message: "Step 1 is a tool call, not a model call; only a model call can be sent again.",
    });
    expect((await post({ sessionId: importedId, step: 99, endpointId: "echo" })).status).toBe(404);
    expect((await post({ sessionId: "nope", step: 0, endpointId: "echo" })).status).toBe(404);
    expect((await post({ sessionId: importedId, step: 0, endpointId: "nobody" })).body.error.issues).toEqual([
      { path: "modelEndpoint", message: "no such model endpoint" },
    ]);
    expect((await post({ sessionId: importedId, step: 0, endpointId: "echo" }, "viewer")).status).toBe(403);
    // Only the 500 above reached the server.
    expect(model.requests.length).toBe(before + 1);
  });

  it("refuses hostile input before anything is sent: huge, deep, unknown fields, bad roles; __proto__ is only data", async () => {
    const before = model.requests.length;
    const huge = await post({
      sessionId: importedId,
      step: 0,
      endpointId: "echo",
      request: { messages: [{ role: "user", content: "x".repeat(MAX_PLAYGROUND_CHARS) }], tools: [] },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toBe(
      "The request is 2,000,032 characters of JSON; one playground call sends at most 2,000,000.",
    );
    expect(huge.body.error.issues).toEqual([{ path: "request.messages", message: "too large" }]);

    const many = await post({
      sessionId: importedId,
      step: 0,
      request: { messages: Array.from({ length: 2_001 }, () => ({ role: "user", content: "hi" })) },
    });
    expect(many.body.error.issues).toEqual([{ path: "request.messages", message: "At most 2000 messages." }]);

    const deep = `{"sessionId":"${importedId}","step":0,"request":{"messages":[{"role":"user","content":${"[".repeat(600)}${"]".repeat(600)}}]}}`;
    const tooDeep = await post(deep);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.message).toContain("more than 512 levels deep");

    const unknown = await post({ sessionId: importedId, step: 0, request: { messages: [], model: "gpt-5" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues.map((i) => i.path).sort()).toEqual(["request", "request.messages"]);

    const badRole = await post({
      sessionId: importedId,
      step: 0,
      request: { messages: [{ role: "boss", content: "x" }] },
    });
    expect(badRole.body.error.issues.map((i) => i.path)).toEqual(["request.messages[0].role"]);
    expect(model.requests.length).toBe(before);

    const proto = `{"sessionId":"${importedId}","step":0,"endpointId":"echo","request":{"messages":[{"role":"user","content":{"__proto__":{"polluted":true}},"__proto__":{"role":"system"}}]}}`;
    const answered = await post(proto);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(model.requests.at(-1)!.messages).toEqual([{ role: "user", content: '{"__proto__":{"polluted":true}}' }]);
    expect(({} as { polluted?: unknown; role?: unknown }).polluted).toBeUndefined();
    expect(({} as { role?: unknown }).role).toBeUndefined();
  });
});
