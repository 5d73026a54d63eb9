import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cacheKey } from "@/lib/replay";
import {
  importDocument,
  nativeSessionJsonSchema,
  toNativeSession,
  type ImportedSession,
  type ImportResult,
} from "@/lib/ingest";
import { nativeSchemaFileText } from "./native-schema-file";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEMO_DIR = path.join(ROOT, "prisma/seed/native");
const demoFiles = readdirSync(DEMO_DIR).filter((name) => name.endsWith(".json"));

function sessionsOf(result: ImportResult): ImportedSession[] {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.issues)}`);
  return result.sessions;
}
const issuesOf = (result: ImportResult) => {
  if (result.ok) throw new Error("expected issues, got ok");
  return result.issues;
};

/** A small valid native session; tests change one thing at a time. */
function makeSession(overrides: Record<string, unknown> = {}) {
  return {
    agent: { name: "support-bot", adapter: "generic" },
    agentVersion: { version: "1.0.0", capabilities: ["tool_policies"] },
    events: [
      {
        kind: "model_call",
        name: "gpt-4.1",
        input: { messages: [{ role: "user", content: "Refund order 4821" }] },
        output: {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "call_1", name: "lookup_order", args: { order_id: "4821" } }],
        },
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        input: { callId: "call_1", args: { order_id: "4821" } },
        output: { total: 129 },
        parentSeq: 0,
      },
      { kind: "final_output", name: "final_output", output: "Refunded." },
    ],
    ...overrides,
  };
}
const withEvent = (index: number, patch: Record<string, unknown>) => {
  const session = makeSession();
  session.events[index] = { ...session.events[index]!, ...patch };
  return session;
};
const importJson = (value: unknown) => importDocument(JSON.stringify(value));

describe("native import", () => {
  it("fills defaults, numbers events and derives cache keys", () => {
    const [session] = sessionsOf(importJson(makeSession()));
    expect(session).toMatchObject({
      format: "native",
      externalId: null,
      title: null,
      metadata: {},
      tools: [{ name: "lookup_order" }],
    });
    expect(session!.events.map((e) => [e.seq, e.kind, e.status, e.parentSeq])).toEqual([
      [0, "model_call", "completed", null],
      [1, "tool_call", "completed", 0],
      [2, "final_output", "completed", null],
    ]);
    expect(session!.events[1]).toMatchObject({
      cacheKey: cacheKey("lookup_order", { order_id: "4821" }),
      occurrence: 0,
      error: null,
      startedAt: null,
      durationMs: null,
      usage: null,
    });
  });

  it("derives cacheKey and occurrence even when the input states them", () => {
    const doc = withEvent(1, { cacheKey: "forged", occurrence: 7 });
    const [session] = sessionsOf(importJson(doc));
    expect(session!.events[1]).toMatchObject({
      cacheKey: cacheKey("lookup_order", { order_id: "4821" }),
      occurrence: 0,
    });
  });

  it("orders events by seq when every event has one", () => {
    const doc = makeSession();
    const [a, b, c] = doc.events;
    const [session] = sessionsOf(
      importJson({
        ...doc,
        events: [
          { ...c, seq: 2 },
          { ...a, seq: 0 },
          { ...b, seq: 1 },
        ],
      }),
    );
    expect(session!.events.map((e) => e.kind)).toEqual(["model_call", "tool_call", "final_output"]);
  });

  it("makes a status of failed the default for an event with an error", () => {
    const [session] = sessionsOf(
      importJson(withEvent(1, { output: null, error: { type: "Timeout", message: "30s" } })),
    );
    expect(session!.events[1]).toMatchObject({
      status: "failed",
      error: { type: "Timeout", message: "30s" },
      occurrence: 0,
    });
  });

  it("accepts calls answering requests the source gave no id (as traces record them), one call each", () => {
    const unnamed = (calls: number) => ({
      ...makeSession(),
      events: [
        {
          kind: "model_call",
          name: "gpt-4.1",
          input: { messages: [{ role: "user", content: "Refund order 4821" }] },
          output: {
            role: "assistant",
            content: null,
            toolCalls: [
              { id: "", name: "lookup_order", args: { order_id: "4821" } },
              { id: "", name: "lookup_order", args: { order_id: "4822" } },
            ],
          },
        },
        ...Array.from({ length: calls }, (_, i) => ({
          kind: "tool_call",
          name: "lookup_order",
          input: { callId: `span-${i}`, args: { order_id: `482${1 + i}` } },
          output: { total: 129 },
          parentSeq: 0,
        })),
      ],
    });
    const [session] = sessionsOf(importJson(unnamed(2)));
    expect(session!.events.map((e) => [e.kind, (e.input as { callId?: string }).callId ?? null])).toEqual([
      ["model_call", null],
      ["tool_call", "span-0"],
      ["tool_call", "span-1"],
    ]);
    const three = importJson(unnamed(3));
    expect(three.ok ? [] : three.issues).toEqual([
      {
        path: "events[3].input.callId",
        message: "the model_call at seq 0 requested 2 call(s) without an id, and more tool_call events answer them",
      },
    ]);
    const renamed = unnamed(1);
    renamed.events[1] = { ...renamed.events[1]!, name: "refund_payment" };
    const wrongName = importJson(renamed);
    expect(wrongName.ok ? [] : wrongName.issues).toEqual([
      {
        path: "events[1].name",
        message:
          'the model_call at seq 0 requested no call of "refund_payment" without an id, and none with id "span-0"',
      },
    ]);
  });

  it("accepts an array of sessions and JSONL", () => {
    const two = [makeSession({ externalId: "a" }), makeSession({ externalId: "b" })];
    expect(sessionsOf(importJson(two)).map((s) => s.externalId)).toEqual(["a", "b"]);
    const jsonl = `${two.map((s) => JSON.stringify(s)).join("\n")}\n`;
    const result = importDocument(jsonl);
    expect(result.format).toBe("native");
    expect(sessionsOf(result).map((s) => s.externalId)).toEqual(["a", "b"]);
  });
});

describe("native round trips", () => {
  it.each(demoFiles)("demo %s imports cleanly and survives export → import unchanged", (name) => {
    const text = readFileSync(path.join(DEMO_DIR, name), "utf8");
    const [session] = sessionsOf(importDocument(text, { filename: name }));
    const again = sessionsOf(importJson(toNativeSession(session!)));
    expect(again).toEqual([session]);
  });

  it("exports an imported τ-bench session as native and re-imports the same events", () => {
    const text = readFileSync(path.join(ROOT, "prisma/seed/tau-bench/gpt-4o-airline.sample.json"), "utf8");
    const sessions = sessionsOf(importDocument(text, { filename: "gpt-4o-airline.sample.json" }));
    const again = sessionsOf(importJson(sessions.map(toNativeSession)));
    expect(again).toEqual(sessions.map((s) => ({ ...s, format: "native" })));
  });
});

describe("demo sessions", () => {
  const load = (name: string) => sessionsOf(importDocument(readFileSync(path.join(DEMO_DIR, name), "utf8")))[0]!;

  it("has the refund agent with declared side effects and two parallel calls from one model step", () => {
    const session = load("refund-agent.json");
    expect(session.agent).toEqual({ name: "harbor-pine-support", adapter: "openai-agents" });
    expect(session.agentVersion.capabilities).toContain("tool_policies");
    expect(Object.fromEntries(session.tools.map((t) => [t.name, t.sideEffect]))).toEqual({
      lookup_order: "read",
      refund_payment: "external_mutation",
      get_current_time: "none",
    });
    const fromFirstStep = session.events.filter((e) => e.kind === "tool_call" && e.parentSeq === 0);
    expect(fromFirstStep.map((e) => e.name)).toEqual(["lookup_order", "get_current_time"]);
    const refund = session.events.find((e) => e.name === "refund_payment")!;
    expect(refund.input).toEqual({
      callId: expect.any(String) as unknown,
      args: { order_id: "4821", amount: 129, reason: "damaged" },
    });
    expect(session.events.every((e) => e.kind !== "model_call" || (e.usage?.inputTokens ?? 0) > 0)).toBe(true);
  });

  it("has identical polling calls with different results", () => {
    const polls = load("export-polling.json").events.filter((e) => e.name === "get_job_status");
    expect(polls).toHaveLength(2);
    expect(polls[1]!.cacheKey).toBe(polls[0]!.cacheKey);
    expect(polls.map((e) => [e.occurrence, (e.output as { status: string }).status])).toEqual([
      [0, "running"],
      [1, "succeeded"],
    ]);
  });

  it("has a failed call followed by a recovery", () => {
    const events = load("failed-call-recovery.json").events;
    const failed = events.filter((e) => e.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ kind: "tool_call", name: "track_package", error: { type: "CarrierApiError" } });
    expect(events.slice(failed[0]!.seq + 1).some((e) => e.name === "track_package" && e.status === "completed")).toBe(
      true,
    );
    expect(events.at(-1)!.kind).toBe("final_output");
  });
});

describe("native issues, at their exact paths", () => {
  it.each([
    [
      "a wrong kind",
      withEvent(2, { kind: "answer" }),
      [{ path: "events[2].kind", message: expect.stringContaining("Invalid discriminator") as unknown }],
    ],
    [
      "a wrong adapter",
      makeSession({ agent: { name: "x", adapter: "crewai" } }),
      [{ path: "agent.adapter", message: expect.stringContaining("Invalid option") as unknown }],
    ],
    [
      "a negative duration",
      withEvent(1, { durationMs: -5 }),
      [{ path: "events[1].durationMs", message: expect.any(String) as unknown }],
    ],
    [
      "a name of the wrong type",
      withEvent(1, { name: 3 }),
      [{ path: "events[1].name", message: expect.stringContaining("expected string") as unknown }],
    ],
    ["an unknown field", withEvent(1, { parent_seq: 0 }), [{ path: "events[1].parent_seq", message: "unknown field" }]],
    [
      "cache reads and writes past the input",
      withEvent(0, { usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteInputTokens: 50 } }),
      [
        {
          path: "events[0].usage.cacheWriteInputTokens",
          message:
            "cacheWriteInputTokens 50 and cachedInputTokens 60 are more than inputTokens (100): the tokens written to and read from the cache are parts of the input",
        },
      ],
    ],
    [
      "a tool call without parentSeq",
      withEvent(1, { parentSeq: undefined }),
      [{ path: "events[1].parentSeq", message: expect.any(String) as unknown }],
    ],
    ["no events", makeSession({ events: [] }), [{ path: "events", message: "a session needs at least one event" }]],
    [
      "a bad startedAt",
      makeSession({ startedAt: "yesterday" }),
      [{ path: "startedAt", message: expect.any(String) as unknown }],
    ],
    [
      "a model-call output that is not an assistant message",
      withEvent(0, { output: { role: "user", content: "x" } }),
      [{ path: "events[0].output.role", message: expect.any(String) as unknown }],
    ],
    [
      "parentSeq pointing forward",
      withEvent(1, { parentSeq: 2 }),
      [{ path: "events[1].parentSeq", message: "parentSeq 2 must be an earlier event than this one (seq 1)" }],
    ],
    [
      "parentSeq pointing at a tool call",
      {
        ...makeSession(),
        events: [
          ...makeSession().events.slice(0, 2),
          { kind: "final_output", name: "final_output", output: "x", parentSeq: 1 },
        ],
      },
      [{ path: "events[2].parentSeq", message: "parentSeq 1 is a tool_call; it must be a model_call" }],
    ],
    [
      "a callId its parent did not request",
      withEvent(1, { input: { callId: "call_9", args: {} } }),
      [
        {
          path: "events[1].input.callId",
          message: 'the model_call at seq 0 did not request call "call_9" (it requested "call_1")',
        },
      ],
    ],
    [
      "a tool name its parent did not request",
      withEvent(1, { name: "refund_payment" }),
      [{ path: "events[1].name", message: 'call "call_1" was requested as "lookup_order", not "refund_payment"' }],
    ],
    [
      "a call answered twice",
      { ...makeSession(), events: [...makeSession().events.slice(0, 2), makeSession().events[1]!] },
      [
        {
          path: "events[2].input.callId",
          message: 'call "call_1" of the model_call at seq 0 already has a tool_call event',
        },
      ],
    ],
    [
      "a failed event without its error",
      withEvent(1, { status: "failed" }),
      [{ path: "events[1].error", message: "a failed event needs its error {type, message}" }],
    ],
    [
      "an error on a completed event",
      withEvent(1, { status: "completed", error: { type: "E", message: "m" } }),
      [{ path: "events[1].status", message: 'an event with an error must have status "failed", not "completed"' }],
    ],
    [
      "a duplicate tool",
      makeSession({ tools: [{ name: "lookup_order" }, { name: "lookup_order", sideEffect: "read" }] }),
      [{ path: "tools[1].name", message: 'tool "lookup_order" is already declared at tools[0]' }],
    ],
  ])("%s", (_name, doc, expected) => {
    const result = importJson(doc);
    expect(result.format).toBe("native");
    expect(issuesOf(result)).toEqual(expected);
  });

  it.each([
    ["a duplicate seq", [0, 1, 1], [{ path: "events[2].seq", message: "seq 1 is already used by events[1]" }]],
    [
      "a seq out of range",
      [0, 1, 5],
      [{ path: "events[2].seq", message: "seq 5 is out of range: the 3 events must have seqs 0..2" }],
    ],
    [
      "seq on some events only",
      [0, undefined, 2],
      [{ path: "events[1].seq", message: "seq is given on other events: give it on every event or on none" }],
    ],
  ])("reports %s", (_name, seqs, expected) => {
    const doc = makeSession();
    doc.events = doc.events.map((event, i) => ({ ...event, seq: seqs[i] }));
    expect(issuesOf(importJson(doc))).toEqual(expected);
  });

  it("reports every bad session of an array, prefixed by its index, and imports none", () => {
    const result = importJson([
      makeSession(),
      withEvent(0, { kind: 1 }),
      makeSession({ agentVersion: { version: "" } }),
    ]);
    expect(issuesOf(result)).toEqual([
      { path: "[1].events[0].kind", message: expect.any(String) as unknown },
      { path: "[2].agentVersion.version", message: expect.any(String) as unknown },
      { path: "[2].agentVersion.capabilities", message: expect.any(String) as unknown },
    ]);
  });

  it("reports JSONL issues with their line numbers", () => {
    const lines = [makeSession(), makeSession(), withEvent(2, { kind: "answer" })].map((s) => JSON.stringify(s));
    expect(issuesOf(importDocument(lines.join("\n")))).toEqual([
      { path: "line 3: events[2].kind", message: expect.stringContaining("Invalid discriminator") as unknown },
    ]);
  });
});

describe("native JSON Schema", () => {
  it("is committed as lib/ingest/native.schema.json, up to date (run scripts/gen-native-schema.ts)", () => {
    const committed = readFileSync(path.join(ROOT, "lib/ingest/native.schema.json"), "utf8");
    expect(committed).toBe(nativeSchemaFileText());
  });

  it("describes the session document", () => {
    expect(nativeSessionJsonSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: expect.arrayContaining(["agent", "agentVersion", "events"]) as unknown,
      additionalProperties: false,
    });
    const events = (
      nativeSessionJsonSchema as unknown as {
        properties: { events: { items: { oneOf?: unknown[]; anyOf?: unknown[] } } };
      }
    ).properties.events.items;
    expect((events.oneOf ?? events.anyOf)?.length).toBe(4);
  });
});
