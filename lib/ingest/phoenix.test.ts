import { describe, expect, it } from "vitest";
import { importDocument, type ImportedSession } from "@/lib/ingest";
import { phoenixTrace } from "./__fixtures__/phoenix";

function steps(session: ImportedSession) {
  return session.events.map((e) => ({
    kind: e.kind,
    name: e.name,
    ...(e.kind === "tool_call" ? { callId: (e.input as { callId: string }).callId } : {}),
    parentSeq: e.parentSeq,
    status: e.status,
    error: e.error,
    usage: e.usage ?? null,
    durationMs: e.durationMs,
  }));
}

function imported(text: string, format?: "phoenix") {
  const result = importDocument(text, format ? { format } : {});
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.format).toBe("phoenix");
  return result.sessions;
}

describe("the Phoenix mapper", () => {
  it("maps a trace's LLM, TOOL, RETRIEVER and unknown spans to steps with call ids, usage, errors and timing", () => {
    const [session] = imported(JSON.stringify(phoenixTrace(1, { failTool: true })));
    expect(session!.externalId).toBe("00000001abababababababababababab");
    const marked = session!.events.filter((e) => (e.input as { unrecognized?: true } | null)?.unrecognized);
    expect(marked.map((e) => e.name)).toEqual(["moderate"]);
    expect(steps(session!)).toEqual([
      {
        kind: "model_call",
        name: "gpt-4o",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 90, outputTokens: 12 },
        durationMs: 700,
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        callId: "call_1_1",
        parentSeq: 0,
        status: "failed",
        error: { type: "TimeoutError", message: "order service timed out" },
        usage: null,
        durationMs: 200,
      },
      {
        kind: "tool_call",
        name: "search_docs",
        callId: "0001000000000004",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: null,
        durationMs: 100,
      },
      {
        kind: "user_message",
        name: "user",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: null,
        durationMs: null,
      },
      {
        kind: "model_call",
        name: "gpt-4o",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: { inputTokens: 120, outputTokens: 8 },
        durationMs: 600,
      },
      {
        kind: "tool_call",
        name: "moderate",
        callId: "0001000000000006",
        parentSeq: null,
        status: "completed",
        error: null,
        usage: null,
        durationMs: 40,
      },
      {
        kind: "final_output",
        name: "final_output",
        parentSeq: 4,
        status: "completed",
        error: null,
        usage: null,
        durationMs: null,
      },
    ]);
    expect(session!.metadata).toMatchObject({
      source: "phoenix",
      phoenix: { rootSpan: "support-agent", sessionId: "conv-1" },
    });
  });

  it("reads JSON Lines and { data } pages, detected or by ?format=, one session per trace, the same on re-import", () => {
    const lines = [...phoenixTrace(1), ...phoenixTrace(2)].map((s) => JSON.stringify(s)).join("\n");
    const a = imported(lines);
    const b = imported(
      JSON.stringify({ data: [...phoenixTrace(2), ...phoenixTrace(1)], next_cursor: null }),
      "phoenix",
    );
    expect(a.map((s) => s.externalId).sort()).toEqual(b.map((s) => s.externalId).sort());
    expect(a).toHaveLength(2);
  });

  it("refuses hostile spans with their paths, nothing partial", () => {
    const spans: unknown[] = phoenixTrace(1);
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 40; i++) node = node.x = {};
    spans.push({ ...(spans[1] as object), context: { trace_id: "x".repeat(600), span_id: "s" } });
    spans.push({ ...(spans[1] as object), context: { span_id: "s2" }, start_time: "yesterday" });
    const result = importDocument(JSON.stringify([...spans, { ...(phoenixTrace(2)[0] as object), attributes: deep }]), {
      format: "phoenix",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      { path: "[6].context.trace_id", message: "is 600 characters long; the limit is 512" },
      { path: "[7].context.trace_id", message: "a span needs its trace id (a non-empty string)" },
      { path: "[7].start_time", message: "must be an ISO 8601 date-time" },
      { path: "[8].attributes", message: "nested more than 32 levels deep" },
    ]);
  });

  it("imports a trace with a __proto__ attribute without touching any prototype", () => {
    const spans = phoenixTrace(3);
    spans[1]!.attributes = JSON.parse(
      JSON.stringify(spans[1]!.attributes).replace("{", '{"__proto__":{"polluted":1},'),
    ) as Record<string, unknown>;
    imported(JSON.stringify(spans));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
