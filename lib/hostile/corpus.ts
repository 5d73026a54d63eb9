/**
 * Hostile inputs, one per class the probe of issue 10 found, as request
 * bodies. Shared by the database-level tests and the HTTP fuzz suite.
 * Each builder returns a fresh document (unique names), so cases never
 * collide with each other or with earlier runs.
 */

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

type Overrides = { session?: Record<string, unknown>; event?: Record<string, unknown>; args?: unknown };

/** A small valid native session with a tool call; overrides change one thing. */
export function nativeDoc(o: Overrides = {}): Record<string, unknown> {
  return {
    agent: { name: unique("hostile-agent"), adapter: "generic" },
    agentVersion: { version: "1.0.0", capabilities: ["tool_policies"] },
    title: "hostile input",
    events: [
      {
        kind: "model_call",
        name: "gpt-4.1",
        input: { messages: [{ role: "user", content: "Refund order 4821" }] },
        output: {
          role: "assistant",
          content: null,
          toolCalls: [{ id: "call_1", name: "lookup_order", args: o.args ?? { order_id: "4821" } }],
        },
      },
      {
        kind: "tool_call",
        name: "lookup_order",
        parentSeq: 0,
        input: { callId: "call_1", args: o.args ?? { order_id: "4821" } },
        output: { status: "shipped" },
        ...o.event,
      },
      { kind: "final_output", name: "final", input: null, output: "done" },
    ],
    ...o.session,
  };
}

export const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** A native document whose tool arguments nest `depth` levels (as text: JSON.stringify would overflow first). */
export function deepNativeText(depth: number): string {
  return JSON.stringify(nativeDoc({ args: { marker: "DEEP" } })).replaceAll('{"marker":"DEEP"}', deepArray(depth));
}

export type HostileCase = {
  name: string;
  /** The body as sent. */
  body: string;
  /** What the 4xx answer must name (a path or a phrase), when it is refused. */
  names?: string;
  /** True when the right answer is acceptance (with repair), not refusal. */
  accepted?: true;
};

/** Native-import cases: every one must get a 4xx naming the field, or be accepted repaired; never a 5xx. */
export function nativeCases(): HostileCase[] {
  const s = (doc: unknown) => JSON.stringify(doc);
  return [
    {
      name: "durationMs 3e9 (past a 32-bit integer)",
      body: s(nativeDoc({ event: { durationMs: 3e9 } })),
      names: "durationMs",
    },
    { name: "seq -1", body: s(nativeDoc({ event: { seq: -1 } })), names: "seq" },
    {
      name: "seq -1 on every event",
      body: s({ ...nativeDoc(), events: (nativeDoc().events as object[]).map((e, k) => ({ ...e, seq: k - 1 })) }),
      names: "seq",
    },
    { name: "parentSeq -5", body: s(nativeDoc({ event: { parentSeq: -5 } })), names: "parentSeq" },
    {
      name: "tokens past a 32-bit integer",
      body: s(nativeDoc({ event: { usage: { inputTokens: 2 ** 31 } } })),
      names: "inputTokens",
    },
    { name: "nesting 3,000 deep", body: deepNativeText(3_000), names: "512" },
    { name: "nesting 100,000 deep", body: deepNativeText(100_000), names: "512" },
    {
      name: "a 20,000-character agent name",
      body: s(nativeDoc({ session: { agent: { name: "a".repeat(20_000), adapter: "generic" } } })),
      names: "agent.name",
    },
    {
      name: "a 20,000-character tool name",
      body: s(nativeDoc({ event: { name: "t".repeat(20_000) } })),
      names: "name",
    },
    { name: "a 10 MB title", body: s(nativeDoc({ session: { title: "T".repeat(10_000_000) } })), names: "title" },
    { name: "a date in the year 275760", body: s(nativeDoc({ event: { startedAt: "+275760-09-13T00:00:00.000Z" } })) },
    { name: "a lone high surrogate in a string", body: s(nativeDoc({ args: { note: "cut \ud83d" } })), accepted: true },
    { name: "a lone low surrogate in a key", body: s(nativeDoc({ args: { "k\udc00": 1 } })), accepted: true },
    {
      name: "a __proto__ key in arguments",
      body: s(nativeDoc({ args: JSON.parse('{"__proto__":{"polluted":true}}') as unknown })),
      accepted: true,
    },
  ];
}
