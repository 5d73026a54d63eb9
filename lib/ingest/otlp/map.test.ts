import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@/lib/replay";
import type { OtlpSpan } from "./decode";
import { groupSpans, mapOtlpSpans, mapSessionGroup, sessionGroupKey } from "./map";
import { recordings, spansOf } from "./testing";
import { otlpJsonImporter, otlpProtobufImporter } from "./index";
import { readFileSync } from "node:fs";

/** What every recording must come to: the scripted conversation of scripts/record-sdk-traces.ts. */
function expectScriptedSession(events: SessionEvent[], opts: { callIds: boolean; agent?: string }) {
  const shape = events.map((e) => [e.seq, e.kind, e.name, e.status, e.parentSeq]);
  expect(shape).toEqual([
    [0, "model_call", expect.any(String) as unknown, "completed", null],
    [1, "tool_call", "lookup_order", "completed", 0],
    [2, "tool_call", "get_time", "completed", 0],
    [3, "model_call", expect.any(String) as unknown, "completed", null],
    [4, "tool_call", "get_time", "completed", 3],
    [5, "tool_call", "refund_payment", "failed", 3],
    [6, "model_call", expect.any(String) as unknown, "completed", null],
    [7, "final_output", "final_output", "completed", 6],
  ]);
  const tool = (seq: number) => events[seq]!;
  expect(tool(1).input).toEqual({
    callId: opts.callIds ? "call_lookup_1" : (expect.any(String) as unknown),
    args: { order_id: "4821" },
    // GenAI spans name the agent that made each step (AI SDK 7's invoke_agent span, above them all).
    ...(opts.agent ? { agent: opts.agent } : {}),
  });
  expect(tool(1).output).toEqual({ order_id: "4821", status: "delivered", total: 129 });
  // Identical calls, different results: kept apart, counted as occurrences 0 and 1 of one cache key.
  expect(tool(2).input).toMatchObject({ args: { zone: "UTC" } });
  expect(tool(4).input).toMatchObject({ args: { zone: "UTC" } });
  expect(tool(2).output).toBe("12:00:01Z");
  expect(tool(4).output).toBe("12:00:02Z");
  expect(tool(2).cacheKey).toBe(tool(4).cacheKey);
  expect([tool(2).occurrence, tool(4).occurrence]).toEqual([0, 1]);
  if (opts.callIds) {
    expect(tool(2).input).toMatchObject({ callId: "call_time_1" });
    expect(tool(4).input).toMatchObject({ callId: "call_time_2" });
    expect(tool(5).input).toMatchObject({ callId: "call_refund_1" });
  }
  expect(tool(5).input).toMatchObject({ args: { order_id: "4821", amount: 129 } });
  expect(tool(5).error?.message).toMatch(/card processor unavailable/);
  // Every tool call's args are the ones its model call requested.
  for (const event of events.filter((e) => e.kind === "tool_call")) {
    const parent = events[event.parentSeq!]!;
    const requests = (parent.output as { toolCalls?: { id: string; name: string; args: unknown }[] }).toolCalls ?? [];
    const input = event.input as { callId: string; args: unknown };
    expect(requests.some((r) => r.name === event.name && JSON.stringify(r.args) === JSON.stringify(input.args))).toBe(
      true,
    );
  }
  // The model calls see the whole conversation so far.
  expect((events[0]!.input as { messages: unknown[] }).messages).toHaveLength(2);
  expect((events[3]!.input as { messages: unknown[] }).messages).toHaveLength(5);
  expect((events[6]!.input as { messages: unknown[] }).messages).toHaveLength(8);
  expect(events[7]!.output).toBe("Order 4821 was found, but the refund failed: the card processor is unavailable.");
}

describe("recorded SDK exports map to the scripted session", () => {
  for (const ext of ["json", "bin"] as const) {
    for (const [name, files] of recordings(ext)) {
      if (!/^ai[67]-/.test(name)) continue;
      it(`${name} (${ext})`, () => {
        const result = mapOtlpSpans(spansOf(files), { format: ext === "json" ? "otlp-json" : "otlp-protobuf" });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.warnings).toEqual([]);
        expect(result.sessions).toHaveLength(1);
        const session = result.sessions[0]!;
        expect(session.format).toBe(ext === "json" ? "otlp-json" : "otlp-protobuf");
        // AI SDK 7's GenAI spans name no `ai.*` attribute; its `agent_step` spans still say which SDK recorded them.
        expect(session.agent).toEqual({ name: "support-agent", adapter: "vercel-ai-sdk" });
        expect(session.agentVersion.version).toBe("1.0.0");
        expect(session.title).toBe("Refund order 4821 and tell me what time it is.");
        expect(session.tools.map((t) => t.name)).toEqual(["get_time", "lookup_order", "refund_payment"]);
        expect(session.tools[0]?.schema).toMatchObject({ type: "object", properties: { zone: { type: "string" } } });
        expect(session.externalId).toMatch(name.startsWith("ai6") ? `session:session-${name}` : /^trace:[0-9a-f]{32}$/);
        expectScriptedSession(session.events, {
          callIds: true,
          ...(name.startsWith("ai7-genai") ? { agent: "support-agent" } : {}),
        });
        const model = session.events[0]!;
        expect(model.name).toBe("scripted-model");
        expect(model.usage).toEqual({ inputTokens: 42, outputTokens: 7 });
        expect(model.input).toMatchObject({
          model: "scripted-model",
          temperature: 0,
          messages: [
            { role: "system", content: "You are a support agent. Use the tools." },
            { role: "user", content: "Refund order 4821 and tell me what time it is." },
          ],
        });
        expect((model.input as { tools: unknown[] }).tools).toHaveLength(3);
        expect((session.events[6]!.input as { messages: unknown[] }).messages.slice(3, 5)).toEqual([
          {
            role: "tool",
            content: { order_id: "4821", status: "delivered", total: 129 },
            toolCallId: "call_lookup_1",
            ...(name.startsWith("ai7-genai") ? {} : { name: "lookup_order" }),
          },
          {
            role: "tool",
            content: "12:00:01Z",
            toolCallId: "call_time_1",
            ...(name.startsWith("ai7-genai") ? {} : { name: "get_time" }),
          },
        ]);
      });
    }
  }

  it("the AI SDK 6 stream recording arrived as two export requests: together they make the session", () => {
    const files = recordings("json").get("ai6-stream")!;
    expect(files).toHaveLength(2);
    const first = mapOtlpSpans(spansOf([files[0]!]));
    const both = mapOtlpSpans(spansOf(files));
    expect(first.ok && both.ok).toBe(true);
    if (!first.ok || !both.ok) return;
    expect(first.sessions[0]!.events.some((e) => e.kind === "final_output")).toBe(true); // from the last model call
    expectScriptedSession(both.sessions[0]!.events, { callIds: true });
  });

  it("the hand-written OpenInference trace maps, tying calls without ids by name and arguments", () => {
    const result = mapOtlpSpans(spansOf(recordings("json").get("openinference-handwritten")!));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const session = result.sessions[0]!;
    expect(session.externalId).toBe("session:oi-session-1");
    expect(session.agent).toEqual({ name: "SupportAgent", adapter: "generic" });
    const events = session.events;
    expect(events.map((e) => [e.kind, e.name, e.status, e.parentSeq])).toEqual([
      ["model_call", "gpt-test", "completed", null],
      ["tool_call", "lookup_order", "completed", 0],
      ["tool_call", "get_time", "completed", 0],
      ["model_call", "gpt-test", "completed", null],
      ["tool_call", "get_time", "completed", 3],
      ["tool_call", "refund_payment", "failed", 3],
      ["model_call", "gpt-test", "completed", null],
      ["final_output", "final_output", "completed", 6],
    ]);
    expect(events[5]!.error).toEqual({ type: "PaymentError", message: "card processor unavailable" });
    expect([events[2]!.output, events[4]!.output]).toEqual(["12:00:01Z", "12:00:02Z"]);
    expect(events[0]!.usage).toEqual({ inputTokens: 30, outputTokens: 5 });
    expect(events[0]!.input).toMatchObject({ temperature: 0, model: "gpt-test" });
    // The AGENT span above them names the agent of every step, as GenAI's invoke_agent span does.
    expect(events[1]!.input).toEqual({ callId: "c000000000000001", args: { order_id: "4821" }, agent: "SupportAgent" });
    expect(events.filter((e) => e.kind !== "final_output").map((e) => (e.input as { agent?: string }).agent)).toEqual(
      Array(7).fill("SupportAgent"),
    );
  });

  it("an OpenInference handoff: each step names the AGENT span it ran under (agent.name, else the span's name)", () => {
    const spans = spansOf(recordings("json").get("openinference-handwritten")!);
    const support = spans.find((s) => s.attributes["openinference.span.kind"] === "AGENT")!;
    const calls = spans.filter((s) => s.name === "ChatCompletion");
    // The last model call is made by a second agent the first handed off to (an AGENT span under it, named by its
    // agent.name attribute); the first agent's answer stays the run's final output.
    const { "output.value": _answer, ...attributes } = support.attributes;
    const billing = {
      ...support,
      spanId: "00000000000000b1",
      parentSpanId: support.spanId,
      name: "handoff",
      attributes: { ...attributes, "agent.name": "BillingAgent" },
    };
    const last = calls.at(-1)!;
    const handedOff = spans.map((s) => (s === last ? { ...s, parentSpanId: billing.spanId } : s));
    const result = mapOtlpSpans([...handedOff, billing]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const agents = result.sessions[0]!.events.map((e) => [e.kind, (e.input as { agent?: string } | null)?.agent]);
    expect(agents).toEqual([
      ["model_call", "SupportAgent"],
      ["tool_call", "SupportAgent"],
      ["tool_call", "SupportAgent"],
      ["model_call", "SupportAgent"],
      ["tool_call", "SupportAgent"],
      ["tool_call", "SupportAgent"],
      ["model_call", "BillingAgent"],
      ["final_output", undefined],
    ]);
  });
});

// ---------------------------------------------------------------------------

function shuffleSplitDuplicate(spans: OtlpSpan[], seed: number[]): OtlpSpan[][] {
  const pool = spans.map((s, i) => ({ s, k: seed[i % seed.length]! + i * 7 }));
  const shuffled = pool.sort((a, b) => ((a.k * 31) % 97) - ((b.k * 31) % 97) || a.k - b.k).map((p) => p.s);
  const batches: OtlpSpan[][] = [];
  let i = 0;
  let j = 0;
  while (i < shuffled.length) {
    const size = 1 + ((seed[j % seed.length] ?? 0) % 4);
    batches.push(shuffled.slice(i, i + size));
    i += size;
    j++;
  }
  // Re-sent spans (exporter retries), and early copies of spans from before they ended (partial
  // snapshots some exporters send), placed anywhere.
  const dupes = shuffled.filter((_, index) => (seed[index % seed.length] ?? 0) % 3 === 0);
  const partial = shuffled
    .filter((_, index) => (seed[index % seed.length] ?? 0) % 2 === 0)
    .map((s) => ({ ...s, endTimeUnixNano: null, status: { code: 0, message: "" }, events: [] }));
  const cut = Math.min(batches.length, seed[0] ?? 0);
  return [...batches.slice(0, cut), partial, ...batches.slice(cut), dupes];
}

describe("batching invariance: the session is a function of the set of spans", () => {
  for (const [name, files] of recordings("json")) {
    it(name, () => {
      const spans = spansOf(files);
      const baseline = mapOtlpSpans(spans);
      fc.assert(
        fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 20 }), (seed) => {
          const batches = shuffleSplitDuplicate(spans, seed);
          // The route stores every batch then maps everything stored so far.
          const stored: OtlpSpan[] = [];
          let last = null;
          for (const batch of batches) {
            stored.push(...batch);
            last = mapOtlpSpans(stored);
          }
          expect(last).toEqual(baseline);
        }),
        { numRuns: 25 },
      );
    });
  }
});

// ---------------------------------------------------------------------------

const T = "5b8efff798038103d269b633813fc60c";
let nextId = 1;
function mk(
  over: Partial<OtlpSpan> & { attributes: Record<string, unknown> },
  startMs = 0,
  endMs: number | null = startMs + 1,
): OtlpSpan {
  const id = (nextId++).toString(16).padStart(16, "0");
  return {
    traceId: T,
    spanId: id,
    parentSpanId: null,
    name: "span",
    kind: 1,
    startTimeUnixNano: String(1767225600000000000n + BigInt(startMs) * 1000000n),
    endTimeUnixNano: endMs === null ? null : String(1767225600000000000n + BigInt(endMs) * 1000000n),
    events: [],
    status: { code: 0, message: "" },
    resource: {},
    scope: { name: "test", version: null },
    path: `resourceSpans[0].scopeSpans[0].spans[${nextId - 2}]`,
    ...over,
  };
}
const chat = (output: unknown, start: number, extra: Record<string, unknown> = {}) =>
  mk(
    {
      name: "chat m",
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.output.messages": JSON.stringify(output),
        ...extra,
      },
    },
    start,
    start + 5,
  );
const call = (id: string, name: string, args: unknown) => ({ type: "tool_call", id, name, arguments: args });
const exec = (
  name: string,
  id: string | null,
  args: string,
  result: string,
  start: number,
  extra: Partial<OtlpSpan> = {},
) =>
  mk(
    {
      name: `execute_tool ${name}`,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        ...(id ? { "gen_ai.tool.call.id": id } : {}),
        "gen_ai.tool.call.arguments": args,
        "gen_ai.tool.call.result": result,
      },
      ...extra,
    },
    start,
  );

describe("tying tool calls to model calls", () => {
  it("uses the call id, not the span tree or the start order", () => {
    const m1 = chat([{ role: "assistant", parts: [call("a", "f", { x: 1 }), call("b", "f", { x: 1 })] }], 0);
    const m2 = chat([{ role: "assistant", parts: [call("c", "f", { x: 1 })] }], 20);
    // Tool spans parented to the SECOND model call and started out of order.
    const tb = exec("f", "b", '{"x":1}', '"B"', 10, { parentSpanId: m2.spanId });
    const ta = exec("f", "a", '{"x":1}', '"A"', 11, { parentSpanId: m2.spanId });
    const tc = exec("f", "c", '{"x":1}', '"C"', 30, { parentSpanId: m1.spanId });
    const result = mapOtlpSpans([tc, m2, ta, m1, tb]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const events = result.sessions[0]!.events;
    expect(events.map((e) => [e.kind, e.parentSeq, e.output])).toEqual([
      ["model_call", null, expect.anything()],
      ["tool_call", 0, "A"],
      ["tool_call", 0, "B"],
      ["model_call", null, expect.anything()],
      ["tool_call", 3, "C"],
    ]);
    expect(events.filter((e) => e.kind === "tool_call").map((e) => e.occurrence)).toEqual([0, 1, 2]);
  });

  it("marks a span with no end incomplete, and keeps unparseable arguments as text", () => {
    const m = chat([{ role: "assistant", parts: [call("a", "f", "{oops")] }], 0);
    const t = mk(
      {
        name: "execute_tool f",
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "f",
          "gen_ai.tool.call.id": "a",
          "gen_ai.tool.call.arguments": "{oops",
        },
      },
      10,
      null,
    );
    const result = mapOtlpSpans([m, t]);
    if (!result.ok) throw new Error("expected a session");
    const [model, tool] = result.sessions[0]!.events;
    expect((model!.output as { toolCalls: unknown[] }).toolCalls).toEqual([
      { id: "a", name: "f", args: "{oops", argsUnparsed: true },
    ]);
    expect(tool).toMatchObject({
      status: "incomplete",
      input: { callId: "a", args: "{oops", argsUnparsed: true },
      cacheKey: expect.any(String) as unknown,
      occurrence: null,
    });
    expect(result.sessions[0]!.endedAt).toBeNull();
    expect(result.warnings).toEqual([
      {
        path: `${t.path}.attributes["gen_ai.tool.call.arguments"]`,
        message: `span ${t.spanId} (execute_tool f): is not valid JSON: kept as text (argsUnparsed)`,
      },
    ]);
  });

  it("turns a later user turn into a user_message", () => {
    const user = (text: string) => ({ role: "user", parts: [{ type: "text", content: text }] });
    const reply = (text: string) => ({ role: "assistant", parts: [{ type: "text", content: text }] });
    const m1 = chat([reply("hi")], 0, { "gen_ai.input.messages": JSON.stringify([user("hello")]) });
    const m2 = chat([reply("bye")], 10, {
      "gen_ai.input.messages": JSON.stringify([user("hello"), reply("hi"), user("thanks")]),
    });
    const result = mapOtlpSpans([m2, m1]);
    if (!result.ok) throw new Error("expected a session");
    expect(result.sessions[0]!.events.map((e) => [e.kind, e.output])).toEqual([
      ["model_call", { role: "assistant", content: "hi" }],
      ["user_message", "thanks"],
      ["model_call", { role: "assistant", content: "bye" }],
      ["final_output", "bye"],
    ]);
  });
});

describe("mistyped and missing attributes degrade with a warning at the exact path", () => {
  it("reports each and keeps what it can", () => {
    const m = chat([{ role: "assistant", parts: [{ type: "text", content: "ok" }] }], 0, {
      "gen_ai.input.messages": "not json",
      "gen_ai.usage.input_tokens": "many",
    });
    const noName = mk({ name: "execute_tool", attributes: { "gen_ai.operation.name": "execute_tool" } }, 10);
    const result = mapOtlpSpans([m, noName]);
    if (!result.ok) throw new Error("expected a session");
    expect(result.warnings.map((w) => w.path)).toEqual([
      `${m.path}.attributes["gen_ai.input.messages"]`,
      `${m.path}.attributes["gen_ai.usage.input_tokens"]`,
      `${noName.path}.attributes["gen_ai.tool.name"]`,
    ]);
    expect(result.sessions[0]!.events.map((e) => e.kind)).toEqual(["model_call", "final_output"]);
    expect(result.sessions[0]!.events[0]!.usage).toBeNull();
    expect(result.sessions[0]!.metadata.importWarnings).toEqual(result.warnings);
  });

  it("refuses a group with no model or tool step", () => {
    const http = mk({ name: "GET /", attributes: { "http.method": "GET" } });
    expect(mapOtlpSpans([http])).toMatchObject({ ok: false, issues: [{ message: /no model call or tool call/ }] });
    expect(mapOtlpSpans([])).toMatchObject({ ok: false, issues: [{ message: /no spans/ }] });
  });
});

describe("grouping into sessions", () => {
  it("uses session.id or gen_ai.conversation.id from span or resource, else the trace; whole traces follow their session", () => {
    const a = mk({ attributes: { "session.id": "s1" } });
    const b = mk({ attributes: {}, resource: { "gen_ai.conversation.id": "c9" }, traceId: "1".repeat(32) });
    const c = mk({ attributes: {}, traceId: "2".repeat(32) });
    const d = mk({ attributes: {} }); // same trace as `a`, no session of its own
    expect([a, b, c, d].map(sessionGroupKey)).toEqual([
      "session:s1",
      "session:c9",
      `trace:${"2".repeat(32)}`,
      `trace:${T}`,
    ]);
    const groups = groupSpans([a, b, c, d]);
    expect([...groups.keys()]).toEqual(["session:c9", "session:s1", `trace:${"2".repeat(32)}`]);
    expect(
      groups
        .get("session:s1")!
        .map((s) => s.spanId)
        .sort(),
    ).toEqual([a.spanId, d.spanId].sort());
  });

  it("mapSessionGroup rebuilds one group from its stored spans", () => {
    const spans = spansOf(recordings("json").get("ai6-generate")!);
    const key = sessionGroupKey(spans[0]!);
    expect(key).toBe("session:session-ai6-generate");
    const { session, warnings } = mapSessionGroup(key, [...spans, ...spans]);
    expect(warnings).toEqual([]);
    expect(session?.externalId).toBe(key);
    expectScriptedSession(session!.events, { callIds: true });
  });
});

describe("registry importers", () => {
  it("detect and import a saved JSON export and a gzipped protobuf one", () => {
    const json = recordings("json").get("ai7-genai-generate")![0]!;
    const value = JSON.parse(readFileSync(json, "utf8")) as unknown;
    expect(otlpJsonImporter.detect({ shape: "document", value }, {})).toBe(true);
    expect(otlpJsonImporter.detect({ shape: "document", value: { data: [] } }, {})).toBe(false);
    const fromJson = otlpJsonImporter.import({ shape: "document", value }, {});
    const bin = new Uint8Array(readFileSync(recordings("bin").get("ai7-genai-generate")![0]!));
    expect(otlpProtobufImporter.detect(bin, {})).toBe(true);
    expect(otlpProtobufImporter.detect(new TextEncoder().encode("hello, world"), {})).toBe(false);
    const fromBin = otlpProtobufImporter.import(bin, {});
    expect(fromJson.ok && fromBin.ok).toBe(true);
    if (!fromJson.ok || !fromBin.ok) return;
    expect(fromBin.sessions[0]!.events).toEqual(fromJson.sessions[0]!.events);
    expect(fromBin.sessions[0]!.format).toBe("otlp-protobuf");
  });
});
