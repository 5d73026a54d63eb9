import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { APIRequestContext, APIResponse } from "@playwright/test";
import { longChatLog } from "../lib/ingest/long-chat";
import { expect, test } from "./fixtures";

// Bad input over HTTP: every case gets a 4xx naming the problem, and nothing is written.

const KEY = "e2e-test-key-0123456789";
const FIXTURES = "lib/ingest/otlp/__fixtures__";
const bearer = { authorization: `Bearer ${KEY}` };

type SessionList = {
  sessions: { id: string; eventCount: number; externalId: string | null }[];
  nextCursor: string | null;
};

/** Every session (id and event count), for checking that a rejected request wrote nothing. */
async function snapshot(request: APIRequestContext): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await request.get(`/api/v1/sessions?limit=200${cursor ? `&cursor=${cursor}` : ""}`, {
      headers: bearer,
    });
    expect(res.status()).toBe(200);
    const body = (await res.json()) as SessionList;
    out.push(...body.sessions.map((s) => `${s.id}:${s.eventCount}`));
    cursor = body.nextCursor;
  } while (cursor);
  return out.sort();
}

/** A recorded OTLP JSON export with fresh trace ids (so it makes a new session). */
function freshOtlpJson(file = "ai7-genai-generate.json"): { text: string; traceId: string } {
  const traceId = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const text = readFileSync(`${FIXTURES}/${file}`, "utf8").replace(
    /"traceId":"[0-9a-f]{32}"/g,
    `"traceId":"${traceId}"`,
  );
  return { text, traceId };
}

type RpcStatus = {
  code: number;
  message: string;
  details: { "@type": string; fieldViolations: { field: string; description: string }[] }[];
};

test.describe("POST /v1/traces (OTLP/HTTP)", () => {
  test("accepts JSON, gzipped JSON and gzipped protobuf, answering in the request's encoding", async ({ request }) => {
    const json = freshOtlpJson();
    const res = await request.post("/v1/traces", {
      headers: { "content-type": "application/json", "x-api-key": KEY },
      data: json.text,
    });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/json");
    expect(await res.json()).toEqual({});

    const gz = freshOtlpJson("ai7-legacy-generate.json");
    const res2 = await request.post("/v1/traces", {
      headers: { "content-type": "application/json", "content-encoding": "gzip", "api-key": KEY },
      data: gzipSync(gz.text),
    });
    expect(res2.status()).toBe(200);

    const proto = readFileSync(`${FIXTURES}/ai7-genai-stream.bin`);
    const res3 = await request.post("/v1/traces", {
      headers: { "content-type": "application/x-protobuf", "content-encoding": "gzip", ...bearer },
      data: proto,
    });
    expect(res3.status()).toBe(200);
    expect(res3.headers()["content-type"]).toBe("application/x-protobuf");
    expect((await res3.body()).length).toBe(0); // an empty ExportTraceServiceResponse

    const list = (await (await request.get("/api/v1/sessions?limit=200", { headers: bearer })).json()) as SessionList;
    const created = list.sessions.find((s) => s.externalId === `trace:${json.traceId}`);
    expect(created?.eventCount).toBe(8);
  });

  test("rejects bad requests with google.rpc.Status bodies and writes nothing", async ({ request }) => {
    const before = await snapshot(request);
    // Strings go as raw bytes (Playwright would JSON-encode a string sent as application/json).
    const post = (headers: Record<string, string>, data: string | Buffer) =>
      request.post("/v1/traces", { headers, data: typeof data === "string" ? Buffer.from(data) : data });
    const json = { "content-type": "application/json", "x-api-key": KEY };

    // 401: no key, a wrong key.
    const keyless: Record<string, string>[] = [
      { "content-type": "application/json" },
      { "content-type": "application/json", "x-api-key": "not-a-real-key-123" },
    ];
    for (const headers of keyless) {
      const res = await post(headers, freshOtlpJson().text);
      expect(res.status()).toBe(401);
      expect(((await res.json()) as RpcStatus).code).toBe(16);
    }
    // 415: a content type that is not an OTLP encoding; an encoding we do not read.
    const wrongType = await post({ "content-type": "text/plain", "x-api-key": KEY }, freshOtlpJson().text);
    expect(wrongType.status()).toBe(415);
    expect(((await wrongType.json()) as RpcStatus).message).toMatch(/application\/json or application\/x-protobuf/);
    const br = await post({ ...json, "content-encoding": "br" }, freshOtlpJson().text);
    expect(br.status()).toBe(415);
    expect(((await br.json()) as RpcStatus).message).toMatch(/Content-Encoding 'br'/);

    // 400: malformed JSON, a broken gzip stream, malformed protobuf (answered in protobuf).
    const malformed = await post(json, '{"resourceSpans": [');
    expect(malformed.status()).toBe(400);
    expect(((await malformed.json()) as RpcStatus).message).toMatch(/not JSON/);
    const badGzip = await post(
      { ...json, "content-encoding": "gzip" },
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4]),
    );
    expect(badGzip.status()).toBe(400);
    expect(((await badGzip.json()) as RpcStatus).message).toMatch(/gzip/);
    const badProto = await post(
      { "content-type": "application/x-protobuf", "x-api-key": KEY },
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    );
    expect(badProto.status()).toBe(400);
    expect(badProto.headers()["content-type"]).toBe("application/x-protobuf");
    const statusBytes = await badProto.body();
    expect(statusBytes[0]).toBe(0x08); // field 1 (code), varint
    expect(statusBytes[1]).toBe(3); // INVALID_ARGUMENT
    expect(statusBytes.toString("latin1")).toContain("not a protobuf ExportTraceServiceRequest");

    // 400: schema violations, each at its exact path.
    const schema = await post(
      json,
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "xyz", name: "s" }] }] }] }),
    );
    expect(schema.status()).toBe(400);
    const violations = ((await schema.json()) as RpcStatus).details[0]!.fieldViolations.map((v) => v.field);
    expect(violations).toEqual(
      expect.arrayContaining([
        "resourceSpans[0].scopeSpans[0].spans[0].traceId",
        "resourceSpans[0].scopeSpans[0].spans[0].spanId",
      ]),
    );

    // 400: a span with a mistyped attribute (a tool name that is a number), even among good spans.
    const good = freshOtlpJson();
    const doc = JSON.parse(good.text) as {
      resourceSpans: { scopeSpans: { spans: { attributes: { key: string; value: Record<string, unknown> }[] }[] }[] }[];
    };
    const attr = doc.resourceSpans
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.flatMap((sp) => sp.attributes)))
      .find((a) => a.key === "gen_ai.tool.name");
    expect(attr).toBeDefined();
    attr!.value = { intValue: "42" };
    const mistyped = await post(json, JSON.stringify(doc));
    expect(mistyped.status()).toBe(400);
    const mistypedBody = (await mistyped.json()) as RpcStatus;
    expect(mistypedBody.message).toMatch(/gen_ai\.tool\.name/);
    expect(
      mistypedBody.details[0]!.fieldViolations.some(
        (v) => v.field.endsWith('["gen_ai.tool.name"]') || v.field.includes("gen_ai.tool.name"),
      ),
    ).toBe(true);

    // 413: over BRANCHPOINT_MAX_BODY_BYTES (20 MB by default).
    const huge = await post(json, Buffer.alloc(20 * 1024 * 1024 + 1, 0x20));
    expect(huge.status()).toBe(413);
    expect(((await huge.json()) as RpcStatus).message).toMatch(/limit/);

    expect(await snapshot(request)).toEqual(before);
  });
});

test.describe("POST /v1/traces/ingest (OpenAI Agents SDK)", () => {
  test("stores an export and refuses bad ones without writing", async ({ request }) => {
    const before = await snapshot(request);
    const noKey = await request.post("/v1/traces/ingest", { data: { data: [] } });
    expect(noKey.status()).toBe(401);
    const malformed = await request.post("/v1/traces/ingest", {
      headers: { ...bearer, "content-type": "application/json" },
      data: Buffer.from("{not json"),
    });
    expect(malformed.status()).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("malformed_json");
    const wrongType = await request.post("/v1/traces/ingest", {
      headers: { ...bearer, "content-type": "text/csv" },
      data: Buffer.from("a,b"),
    });
    expect(wrongType.status()).toBe(415);
    const shape = await request.post("/v1/traces/ingest", {
      headers: bearer,
      data: { data: [{ object: "trace.span", id: "span_1", started_at: "yesterday", span_data: {} }] },
    });
    expect(shape.status()).toBe(400);
    const issues = ((await shape.json()) as { error: { issues: { path: string }[] } }).error.issues.map((i) => i.path);
    expect(issues).toEqual(
      expect.arrayContaining(["data[0].trace_id", "data[0].started_at", "data[0].span_data.type"]),
    );
    expect(await snapshot(request)).toEqual(before);

    const body = readFileSync("lib/ingest/__fixtures__/openai-agents-chat.json", "utf8").replaceAll(
      "group-openai-agents-chat",
      `group-api-${Date.now()}`,
    );
    const ok = await request.post("/v1/traces/ingest", {
      headers: { ...bearer, "content-type": "application/json" },
      data: body,
    });
    expect(ok.status()).toBe(200);
    const saved = (await ok.json()) as { sessions: { id: string; eventCount: number }[] };
    expect(saved.sessions).toHaveLength(1);
    expect(saved.sessions[0]!.eventCount).toBe(8);
  });
});

test.describe("/api/v1/sessions", () => {
  const native = () => {
    const doc = JSON.parse(readFileSync("prisma/seed/native/refund-agent.json", "utf8")) as {
      externalId: string;
      title: string;
    };
    doc.externalId = `api-test:${Date.now()}`;
    doc.title = "Imported through the API";
    return doc;
  };

  test("imports a document (201), answers a re-import with the same id, lists newest first and returns events in order", async ({
    request,
  }) => {
    const doc = native();
    const res = await request.post("/api/v1/sessions", { headers: bearer, data: doc });
    expect(res.status()).toBe(201);
    const { sessions } = (await res.json()) as { sessions: { id: string; eventCount: number; duplicate?: boolean }[] };
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.duplicate).toBeUndefined();
    const again = (await (
      await request.post("/api/v1/sessions?format=native", { headers: bearer, data: doc })
    ).json()) as { sessions: unknown[] };
    expect(again.sessions).toEqual([{ id: sessions[0]!.id, eventCount: sessions[0]!.eventCount, duplicate: true }]);

    const page1 = (await (await request.get("/api/v1/sessions?limit=2", { headers: bearer })).json()) as SessionList;
    expect(page1.sessions[0]!.id).toBe(sessions[0]!.id);
    expect(page1.sessions).toHaveLength(2);
    expect(page1.nextCursor).toBe(page1.sessions[1]!.id);
    const page2 = (await (
      await request.get(`/api/v1/sessions?limit=2&cursor=${page1.nextCursor}`, { headers: bearer })
    ).json()) as SessionList;
    expect(page2.sessions.map((s) => s.id)).not.toContain(page1.sessions[0]!.id);
    const byAgent = (await (
      await request.get("/api/v1/sessions?agent=trailhead-tracking-bot&q=carrier", { headers: bearer })
    ).json()) as SessionList;
    expect(byAgent.sessions.length).toBeGreaterThan(0);

    const one = await request.get(`/api/v1/sessions/${sessions[0]!.id}`, { headers: bearer });
    expect(one.status()).toBe(200);
    const { session } = (await one.json()) as { session: { title: string; events: { seq: number; kind: string }[] } };
    expect(session.title).toBe("Imported through the API");
    expect(session.events.map((e) => e.seq)).toEqual(session.events.map((_, i) => i));
    expect(session.events.length).toBe(sessions[0]!.eventCount);
  });

  test("gives a long chat log's model inputs whole, or as stored with ?inputs=delta", async ({ request }) => {
    const turns = 30;
    const res = await request.post("/api/v1/sessions?format=openai-chat", {
      headers: bearer,
      data: { ...longChatLog(turns), metadata: { title: `long chat ${Date.now()}` } },
    });
    expect(res.status()).toBe(201);
    const id = ((await res.json()) as { sessions: { id: string }[] }).sessions[0]!.id;
    type Event = { seq: number; kind: string; input: { messages: unknown[] }; inputPrefix?: unknown };
    const full = (
      (await (await request.get(`/api/v1/sessions/${id}`, { headers: bearer })).json()) as {
        session: { events: Event[] };
      }
    ).session.events;
    const delta = (
      (await (await request.get(`/api/v1/sessions/${id}?inputs=delta`, { headers: bearer })).json()) as {
        session: { events: Event[] };
      }
    ).session.events;
    const models = full.filter((e) => e.kind === "model_call");
    expect(models.map((e) => e.input.messages.length)).toEqual(models.map((_, i) => 2 + 2 * i));
    expect(full.every((e) => !("inputPrefix" in e))).toBe(true);
    // Delta: the first call whole, every later one its two new messages after the call before it.
    const deltaModels = delta.filter((e) => e.kind === "model_call");
    expect(deltaModels[0]!.inputPrefix).toBeNull();
    expect(deltaModels.slice(1).map((e) => [e.inputPrefix, e.input.messages.length])).toEqual(
      deltaModels.slice(1).map((_, i) => [{ seq: models[i]!.seq, count: 2 + 2 * i }, 2]),
    );
    // Rebuilt from the delta form, every input is the full one.
    const rebuilt = new Map<number, unknown[]>();
    for (const e of deltaModels) {
      const prefix = e.inputPrefix as { seq: number; count: number } | null;
      const messages = prefix
        ? [...rebuilt.get(prefix.seq)!.slice(0, prefix.count), ...e.input.messages]
        : e.input.messages;
      rebuilt.set(e.seq, messages);
    }
    expect(models.map((e) => rebuilt.get(e.seq))).toEqual(models.map((e) => e.input.messages));

    // Streamed (no length known up front), as JSON; a missing session is still a JSON 404.
    const streamed = await request.get(`/api/v1/sessions/${id}`, { headers: bearer });
    expect(streamed.headers()["transfer-encoding"]).toBe("chunked");
    expect(streamed.headers()["content-type"]).toBe("application/json");
    const missing = await request.get(`/api/v1/sessions/no-such-session`, { headers: bearer });
    expect(missing.status()).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");

    const bad = await request.get(`/api/v1/sessions/${id}?inputs=compact`, { headers: bearer });
    expect(bad.status()).toBe(400);
    expect(((await bad.json()) as { error: { issues: { path: string }[] } }).error.issues[0]!.path).toBe("inputs");
  });

  test("refuses bad input with 4xx and exact paths, and writes nothing", async ({ request }) => {
    const before = await snapshot(request);
    const cases: { name: string; res: Promise<APIResponse>; status: number; code: string; path?: string }[] = [
      { name: "no key", res: request.post("/api/v1/sessions", { data: native() }), status: 401, code: "unauthorized" },
      {
        name: "x-api-key is not for /api/v1",
        res: request.post("/api/v1/sessions", { headers: { "x-api-key": KEY }, data: native() }),
        status: 401,
        code: "unauthorized",
      },
      {
        name: "malformed JSON",
        res: request.post("/api/v1/sessions", {
          headers: { ...bearer, "content-type": "application/json" },
          data: Buffer.from('{"agent": '),
        }),
        status: 400,
        code: "unknown_format",
      },
      {
        name: "unknown format",
        res: request.post("/api/v1/sessions", { headers: bearer, data: { hello: "world" } }),
        status: 400,
        code: "unknown_format",
      },
      {
        name: "bad ?format=",
        res: request.post("/api/v1/sessions?format=yaml", { headers: bearer, data: native() }),
        status: 400,
        code: "invalid_input",
        path: "format",
      },
      {
        name: "schema violation",
        res: request.post("/api/v1/sessions?format=native", {
          headers: bearer,
          data: { ...native(), events: [{ kind: "teleport" }] },
        }),
        status: 400,
        code: "invalid_input",
        path: "events[0].kind",
      },
      {
        name: "wrong content type",
        res: request.post("/api/v1/sessions", {
          headers: { ...bearer, "content-type": "image/png" },
          data: Buffer.from([1, 2, 3]),
        }),
        status: 415,
        code: "unsupported_media_type",
      },
      {
        name: "empty body",
        res: request.post("/api/v1/sessions", { headers: { ...bearer, "content-type": "application/json" } }),
        status: 400,
        code: "invalid_input",
      },
      {
        // JSON Lines, chat logs, arrays and a native document's events are read as a stream up to the import limit;
        // a native document's other fields are read whole, within the body limit (20 MiB by default).
        name: "a whole document over the body limit",
        res: request.post("/api/v1/sessions", {
          headers: { ...bearer, "content-type": "application/json" },
          data: Buffer.from(JSON.stringify({ ...native(), metadata: { pad: "x".repeat(20 * 1024 * 1024) } })),
        }),
        status: 413,
        code: "payload_too_large",
      },
      {
        name: "unknown id",
        res: request.get("/api/v1/sessions/nope", { headers: bearer }),
        status: 404,
        code: "not_found",
      },
      {
        name: "bad limit",
        res: request.get("/api/v1/sessions?limit=0", { headers: bearer }),
        status: 400,
        code: "invalid_input",
        path: "limit",
      },
    ];
    for (const c of cases) {
      const res = await c.res;
      expect(res.status(), c.name).toBe(c.status);
      const body = (await res.json()) as { error: { code: string; message: string; issues: { path: string }[] } };
      expect(body.error.code, c.name).toBe(c.code);
      expect(body.error.message.length, c.name).toBeGreaterThan(0);
      if (c.path)
        expect(
          body.error.issues.map((i) => i.path),
          c.name,
        ).toContain(c.path);
    }
    expect(await snapshot(request)).toEqual(before);
  });

  test("reads a body over 10 MB whole, up to the import limit", async ({ request }) => {
    // A pretty-printed export grows big with little in it: 12 MB of indentation around a small document. A body over
    // 10 MB used to reach the route cut to its first 10 MB, here nothing but spaces ("the document is empty").
    const doc = native();
    const body = Buffer.from(`${" ".repeat(12 * 1024 * 1024)}${JSON.stringify(doc)}`);
    const res = await request.post("/api/v1/sessions", {
      headers: { ...bearer, "content-type": "application/json" },
      data: body,
    });
    expect(res.status(), await res.text()).toBe(201);
    const { sessions } = (await res.json()) as { sessions: { id: string; eventCount: number }[] };
    expect(sessions).toEqual([{ id: expect.any(String), eventCount: 9 }]); // the refund run's 9 steps
  });

  test("imports a chat log larger than the proxy would hold (25 MB) whole, as a stream", async ({ request }) => {
    // The import routes are left out of proxy.ts, which keeps at most the body limit plus 1 MiB of any body it
    // sees: this log is past that, within the import limit, and read as a stream.
    const stamp = Date.now();
    const log = { ...longChatLog(30), metadata: { title: `padded chat ${stamp}` } };
    const padded = {
      ...log,
      metadata: { title: `padded chat ${stamp} (25 MB)` },
      messages: log.messages.map((m, i) => {
        const message = m as { role: string; content: string | null };
        if (message.role !== "tool") return message;
        const note = `${i} `.repeat(Math.ceil(850_000 / `${i} `.length)).slice(0, 850_000);
        return { ...message, content: JSON.stringify({ ...(JSON.parse(message.content!) as object), note }) };
      }),
    };
    const body = Buffer.from(JSON.stringify(padded));
    expect(body.byteLength).toBeGreaterThan(25_000_000);
    const big = await request.post("/api/v1/sessions?format=openai-chat", {
      headers: { ...bearer, "content-type": "application/json" },
      data: body,
      timeout: 120_000,
    });
    expect(big.status(), (await big.text()).slice(0, 500)).toBe(201);
    const small = await request.post("/api/v1/sessions?format=openai-chat", { headers: bearer, data: log });
    expect(small.status()).toBe(201);
    const count = async (res: APIResponse) => ((await res.json()) as { sessions: { eventCount: number }[] }).sessions;
    const [bigSessions, smallSessions] = [await count(big), await count(small)];
    expect(bigSessions).toHaveLength(1);
    expect(bigSessions[0]!.eventCount).toBe(smallSessions[0]!.eventCount);
    expect(bigSessions[0]!.eventCount).toBe(62); // 31 model calls, 30 tool calls, the final answer
  });

  test("serves the native JSON Schema", async ({ request }) => {
    const res = await request.get("/api/v1/schema/native-session.json");
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(readFileSync("lib/ingest/native.schema.json", "utf8")));
  });
});
