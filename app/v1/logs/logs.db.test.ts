import { JsonLogsSerializer, ProtobufLogsSerializer } from "@opentelemetry/otlp-transformer";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as logs } from "@/app/v1/logs/route";
import { POST as traces } from "@/app/v1/traces/route";
import { createApiKey } from "@/lib/db";
import type { Database } from "@/lib/db/client";
import { getSession, toSessionEvent } from "@/lib/db/session-reads";
import { fallbacks } from "@/lib/server/ingest/increment";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { otlpExport } from "@/lib/ingest/otlp/genai-testing";
import { CONCIERGE_STEPS, conciergeLogs, conciergeSpans, logRecord } from "@/lib/ingest/otlp/logs-testing";
import { mapOtlpSpans } from "@/lib/ingest/otlp/map";
import { logsOf, recordings, spansWithLogs } from "@/lib/ingest/otlp/testing";
import { readFileSync } from "node:fs";

// GenAI events sent as OTLP log records to /v1/logs, through the route as a log exporter reaches it: kept by the
// span each names and read as that span's messages, whether the logs come before the spans or after them.

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };
let db: TestDatabase;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase("pglite");
  global.__branchpointDb = Promise.resolve(db);
  key = (await createApiKey(db.prisma, "exporter")).key;
});
afterAll(async () => {
  global.__branchpointDb = undefined;
  await db?.drop();
});

type Handler = typeof logs;

async function send(
  handler: Handler,
  path: string,
  body: string | Uint8Array,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<Response> {
  return handler(
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { "x-api-key": key, ...headers },
      body: body as BodyInit,
    }),
    { params: Promise.resolve({}) },
  );
}

const PROTOBUF = { "content-type": "application/x-protobuf" };

async function steps(externalId: string) {
  const row = await db.prisma.session.findFirstOrThrow({ where: { externalId }, select: { id: true } });
  const session = (await getSession(db.prisma, row.id))!;
  return session.events.map(toSessionEvent).map(({ seq, kind, name, parentSeq, status, input, output }) => ({
    seq,
    kind,
    name,
    parentSeq,
    status,
    input,
    output,
  }));
}

describe("/v1/logs (pglite)", () => {
  it("logs sent before their spans: the spans take them when they come", async () => {
    const trace = "c1".repeat(16);
    const sent = await send(logs, "/v1/logs", ProtobufLogsSerializer.serializeRequest(conciergeLogs(trace))!, PROTOBUF);
    expect(sent.status).toBe(200);
    expect(sent.headers.get("content-type")).toBe("application/x-protobuf");
    expect((await sent.arrayBuffer()).byteLength).toBe(0);
    expect(await db.prisma.traceLog.count({ where: { traceId: trace } })).toBe(8);
    expect(await db.prisma.session.count({ where: { externalId: "session:conv-before" } })).toBe(0);

    expect((await send(traces, "/v1/traces", otlpExport(conciergeSpans(trace, "conv-before")))).status).toBe(200);
    expect(await steps("session:conv-before")).toEqual(CONCIERGE_STEPS);
  });

  it("logs sent before their spans, the spans in two exports: each export takes its own spans' logs, incrementally", async () => {
    const trace = "c5".repeat(16);
    expect((await send(logs, "/v1/logs", JsonLogsSerializer.serializeRequest(conciergeLogs(trace))!)).status).toBe(200);
    const spans = conciergeSpans(trace, "conv-before-split");
    const rebuildsBefore = [...fallbacks.values()].reduce((a, b) => a + b, 0);
    for (const part of [spans.slice(0, 2), spans.slice(2)])
      expect((await send(traces, "/v1/traces", otlpExport(part))).status).toBe(200);
    // Neither export took the full rebuild, which reads the logs apart from the increment.
    expect([...fallbacks.values()].reduce((a, b) => a + b, 0)).toBe(rebuildsBefore);
    expect(await steps("session:conv-before-split")).toEqual(CONCIERGE_STEPS);
  });

  it("logs sent after their spans, in two exports and once again: the session rebuilt with them", async () => {
    const trace = "c2".repeat(16);
    expect((await send(traces, "/v1/traces", otlpExport(conciergeSpans(trace, "conv-after")))).status).toBe(200);
    expect((await steps("session:conv-after"))[0]!.input).toEqual({
      messages: [],
      model: "gpt-4o-mini",
      provider: "openai",
    });
    const records = conciergeLogs(trace);
    const first = JsonLogsSerializer.serializeRequest(records.slice(0, 3))!;
    expect(
      (
        await send(logs, "/v1/logs", gzipSync(first), {
          "content-type": "application/json",
          "content-encoding": "gzip",
        })
      ).status,
    ).toBe(200);
    const second = await send(logs, "/v1/logs", JsonLogsSerializer.serializeRequest(records.slice(3))!);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({});
    expect(await steps("session:conv-after")).toEqual(CONCIERGE_STEPS);
    // An exporter's retry of the whole export stores nothing new and changes no step.
    expect((await send(logs, "/v1/logs", ProtobufLogsSerializer.serializeRequest(records)!, PROTOBUF)).status).toBe(
      200,
    );
    expect(await db.prisma.traceLog.count({ where: { traceId: trace } })).toBe(8);
    expect(await steps("session:conv-after")).toEqual(CONCIERGE_STEPS);
  });

  it("answers as /v1/traces does: the key, the Content-Type, a malformed export (nothing stored), a partial success", async () => {
    const before = await db.prisma.traceLog.count();
    const noKey = await logs(new Request("http://127.0.0.1/v1/logs", { method: "POST", body: "{}" }), {
      params: Promise.resolve({}),
    });
    expect(noKey.status).toBe(401);
    expect((await send(logs, "/v1/logs", "{}", { "content-type": "text/plain" })).status).toBe(415);

    const trace = "c3".repeat(16);
    const good = conciergeLogs(trace)[0]!;
    const unreadable = logRecord(trace, "1000000000000001", 2, "gen_ai.user.message", "{not json");
    const bad = await send(logs, "/v1/logs", JsonLogsSerializer.serializeRequest([good, unreadable])!);
    expect(bad.status).toBe(400);
    const status = (await bad.json()) as { code: number; message: string; details: { fieldViolations: unknown[] }[] };
    expect(status.code).toBe(3);
    expect(status.message).toMatch(
      /^Some GenAI events cannot be read: resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[1\]: gen_ai\.user\.message: gen_ai\.event\.content is not valid JSON/,
    );
    expect(status.details[0]!.fieldViolations).toHaveLength(1);
    expect(await db.prisma.traceLog.count()).toBe(before);

    const orphan = logRecord(trace, null, 2, "gen_ai.user.message", { content: "no span" });
    const partial = await send(logs, "/v1/logs", JsonLogsSerializer.serializeRequest([good, orphan])!);
    expect(partial.status).toBe(200);
    expect(await partial.json()).toEqual({
      partialSuccess: {
        rejectedLogRecords: "1",
        errorMessage:
          "1 GenAI event named no trace and span id and was dropped: send them from inside the span they belong to.",
      },
    });
    expect(await db.prisma.traceLog.count()).toBe(before + 1);
  });

  it("the openai client's instrumentations as their exporters sent them: the session the recordings map to", async () => {
    const PROTOBUF_GZIP = { ...PROTOBUF, "content-encoding": "gzip" };
    const cases = [
      ["otel-openai-chat-stream", "bin"],
      ["openinference-openai-chat-stream", "json"],
    ] as const;
    for (const [name, ext] of cases) {
      const [file] = recordings(ext).get(name)!;
      const body = new Uint8Array(readFileSync(file!));
      expect((await send(traces, "/v1/traces", body, ext === "bin" ? PROTOBUF_GZIP : undefined)).status).toBe(200);
      const sentLogs = logsOf(name);
      if (sentLogs) expect((await send(logs, "/v1/logs", sentLogs)).status).toBe(200);
      const mapped = mapOtlpSpans(spansWithLogs(name, ext));
      if (!mapped.ok) throw new Error(JSON.stringify(mapped.issues));
      const expected = mapped.sessions[0]!;
      const stored = await steps(expected.externalId!);
      expect(stored).toEqual(
        expected.events.map(({ seq, kind, name, parentSeq, status, input, output }) => ({
          seq,
          kind,
          name,
          parentSeq,
          status,
          input,
          output,
        })),
      );
      expect(stored.map((e) => e.kind)).toEqual([
        "model_call",
        "tool_call",
        "tool_call",
        "model_call",
        "tool_call",
        "tool_call",
        "model_call",
        "final_output",
      ]);
    }
  });
});
