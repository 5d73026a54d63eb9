import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, type SessionEvent } from "@/lib/replay";
import { importDocument } from "@/lib/ingest";
import { compactInputs, expandInputAt, expandInputs, fullInputJson, inputDigests } from "./inputs";
import { longChatLog } from "@/lib/ingest/long-chat";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every document an importer's tests or the demo data use, with its name. */
function documents(): { name: string; text: string | Uint8Array }[] {
  const out: { name: string; text: string | Uint8Array }[] = [];
  const add = (dir: string, filter: (f: string) => boolean) => {
    for (const f of readdirSync(path.join(ROOT, dir)).sort())
      if (filter(f)) out.push({ name: `${dir}/${f}`, text: readFileSync(path.join(ROOT, dir, f)) });
  };
  add("prisma/seed/native", (f) => /\.jsonl?$/.test(f));
  add("prisma/seed/tau-bench", (f) => f.endsWith(".json"));
  // A stream recorded in two exports: its second part alone is not a session.
  add("lib/ingest/otlp/__fixtures__", (f) => /\.(json|bin)$/.test(f) && !/\.2\./.test(f));
  add("lib/ingest/__fixtures__", (f) => f.endsWith(".json"));
  out.push({ name: "long chat of 50 turns", text: JSON.stringify(longChatLog(50)) });
  return out;
}

/** Compact then expand: the inputs each event had. */
function roundTrip(events: readonly SessionEvent[]): unknown[] {
  const compact = compactInputs(events);
  // Through JSON, as the database stores them: no object is shared with the original.
  const stored = JSON.parse(JSON.stringify(compact)) as typeof compact;
  return expandInputs(
    events.map((e, i) => ({ seq: e.seq, kind: e.kind, input: stored[i]!.input, prefix: stored[i]!.prefix })),
  );
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The full inputs' JSON text as fullInputJson writes it a step at a time, against JSON.stringify of expandInputs. */
function expectSameJson(events: readonly SessionEvent[], name = "") {
  const stored = JSON.parse(JSON.stringify(compactInputs(events))) as ReturnType<typeof compactInputs>;
  const steps = events.map((e, i) => ({
    seq: e.seq,
    kind: e.kind,
    input: stored[i]!.input,
    prefix: stored[i]!.prefix,
  }));
  const expanded = expandInputs(steps);
  const write = fullInputJson();
  steps.forEach((step, i) =>
    expect(write(step), `${name} event ${step.seq}`).toBe(JSON.stringify(expanded[i] ?? null)),
  );
}

describe("model inputs stored once", () => {
  it("compact and full forms are equal for every importer's fixtures and every demo session", () => {
    let sessions = 0;
    let cut = 0;
    for (const doc of documents()) {
      const result = importDocument(doc.text);
      expect(result.ok, doc.name).toBe(true);
      if (!result.ok) continue;
      for (const s of result.sessions) {
        sessions++;
        const full = roundTrip(s.events);
        s.events.forEach((e, i) => expect(same(full[i], e.input), `${doc.name} event ${e.seq}`).toBe(true));
        expectSameJson(s.events, doc.name);
        cut += compactInputs(s.events).filter((c) => c.prefix !== null).length;
      }
    }
    expect(sessions).toBeGreaterThanOrEqual(15);
    // Most model calls extend the one before: the fixtures really exercise the pointers.
    expect(cut).toBeGreaterThan(30);
  });

  it("stores each message of a long conversation once", () => {
    const result = importDocument(JSON.stringify(longChatLog(200)));
    if (!result.ok) throw new Error("does not import");
    const events = result.sessions[0]!.events;
    const compact = compactInputs(events);
    const storedMessages = compact.reduce(
      (n, c) => n + ((c.input as { messages?: unknown[] } | null)?.messages?.length ?? 0),
      0,
    );
    // 2 prompt messages + 2 per turn; the last assistant message is an output, never an input.
    expect(storedMessages).toBe(2 + 2 * 200);
    expect(compact.filter((c) => c.prefix !== null)).toHaveLength(200);
  });

  const message = fc.oneof(
    fc.record({ role: fc.constantFrom("user", "assistant", "tool", "system"), content: fc.string({ maxLength: 8 }) }),
    fc.record({
      role: fc.constant("assistant"),
      content: fc.constant(null),
      toolCalls: fc.array(fc.jsonValue(), { maxLength: 2 }),
    }),
  );
  /** A run: model calls whose inputs extend, repeat, truncate or replace the conversation, among other steps. */
  const run = fc
    .array(
      fc.record({
        op: fc.constantFrom("extend", "extend", "extend", "truncate", "replace", "same", "tool", "no-messages", "null"),
        added: fc.array(message, { maxLength: 3 }),
        cut: fc.nat(6),
        shareObjects: fc.boolean(),
        extra: fc.option(
          fc.record({
            model: fc.string({ maxLength: 4 }),
            temperature: fc.double({ noNaN: true, noDefaultInfinity: true }),
          }),
          { nil: undefined },
        ),
      }),
      { maxLength: 25 },
    )
    .map((ops) => {
      let conversation: unknown[] = [];
      return ops.map((o, seq): SessionEvent => {
        const base = {
          seq,
          name: "m",
          output: null,
          error: null,
          status: "completed" as const,
          startedAt: null,
          durationMs: null,
          usage: null,
          parentSeq: null,
          cacheKey: null,
          occurrence: null,
        };
        if (o.op === "tool") return { ...base, kind: "tool_call", input: { args: o.added } };
        if (o.op === "null") return { ...base, kind: "model_call", input: null };
        if (o.op === "no-messages") return { ...base, kind: "model_call", input: { prompt: o.added } };
        if (o.op === "extend") conversation = [...conversation, ...o.added];
        if (o.op === "truncate") conversation = conversation.slice(0, Math.max(0, conversation.length - o.cut));
        if (o.op === "replace") conversation = o.added;
        const messages = o.shareObjects ? [...conversation] : (JSON.parse(JSON.stringify(conversation)) as unknown[]);
        return { ...base, kind: "model_call", input: { ...(o.extra ?? {}), messages } };
      });
    });

  it("compact and full forms are equal for generated conversations, and digests are equal exactly when full inputs are", () => {
    fc.assert(
      fc.property(run, run, (a, b) => {
        const full = roundTrip(a);
        a.forEach((e, i) => expect(same(full[i], e.input)).toBe(true));
        expectSameJson(a);
        // The same full input gets the same digest whatever came before it.
        const da = inputDigests(a);
        const db = inputDigests(b);
        a.forEach((ea, i) =>
          b.forEach((eb, j) => {
            if (ea.kind !== "model_call" || eb.kind !== "model_call") return;
            expect(da[i] !== null && da[i] === db[j]).toBe(same(ea.input, eb.input) && ea.input !== null);
          }),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("stores the same compact form without digests as with them (hashes worked out only when compared)", () => {
    fc.assert(
      fc.property(run, (a) => {
        const bare = compactInputs(a, { digests: false });
        compactInputs(a).forEach((c, i) => {
          expect(bare[i]!.prefix).toEqual(c.prefix);
          expect(JSON.stringify(bare[i]!.input)).toBe(JSON.stringify(c.input));
          expect(bare[i]!.digest).toBeNull();
        });
        // Steps given in the stored form (a pointer each, after steps given whole) keep it, with or without digests.
        const stored = compactInputs(a).map((c, i) => ({ ...a[i]!, input: c.input, inputPrefix: c.prefix }));
        const again = compactInputs(stored, { digests: false });
        bare.forEach((c, i) => expect(again[i]!.prefix).toEqual(c.prefix));
        expect(compactInputs(stored).map((c) => c.digest)).toEqual(inputDigests(a));
      }),
      { numRuns: 200 },
    );
  });

  it("an input key named __proto__ counts in the digest like any other key", () => {
    const messages = [{ role: "user", content: "hi" }];
    const withKey = JSON.parse(
      '{"__proto__": {"temperature": 1}, "messages": [{"role": "user", "content": "hi"}]}',
    ) as unknown;
    const [a, b] = [withKey, { messages }].map((input) => inputDigests([{ seq: 0, kind: "model_call", input }])[0]);
    expect(a).not.toBeNull();
    expect(a).not.toBe(b);
  });

  it("writes full inputs as JSON text byte for byte, hostile keys and text included", () => {
    const messages = JSON.parse(
      '[{"role":"user","content":"\\ud800 lone, \\u2028, \\u0000"},{"role":"assistant","content":null,"__proto__":{"x":1}}]',
    ) as unknown[];
    const first = JSON.parse('{"__proto__":{"t":1},"model":"m","n":1e308}') as Record<string, unknown>;
    const events: SessionEvent[] = [0, 1, 2].map((seq) => ({
      seq,
      kind: "model_call",
      name: "m",
      input: { ...first, messages: messages.slice(0, seq + 0), after: [seq] },
      output: null,
      error: null,
      status: "completed",
      startedAt: null,
      durationMs: null,
      usage: null,
      parentSeq: null,
      cacheKey: null,
      occurrence: null,
    }));
    expect(compactInputs(events).filter((c) => c.prefix !== null)).toHaveLength(1);
    expectSameJson(events);
    const write = fullInputJson();
    expect(() => write({ seq: 3, kind: "model_call", input: { messages: [] }, prefix: { seq: 1, count: 0 } })).toThrow(
      "step 3 extends step 1 by 0 messages, which is not the model call before it",
    );
  });

  it("names a pointer that does not resolve", () => {
    const steps = [{ seq: 1, kind: "model_call", input: { messages: [] }, prefix: { seq: 0, count: 2 } }];
    expect(() => expandInputs(steps)).toThrow("step 1 extends step 0 by 2 messages, which is not stored");
    expect(() => expandInputAt(steps, 0)).toThrow("step 1 extends step 0 by 2 messages, which is not stored");
  });

  it("expands one step's input as expanding the whole run gives it, and refuses exactly the pointers it refuses", () => {
    // A pointer may be damaged: another step, another count, or a step that stores no messages.
    const damage = fc.option(
      fc.record({ at: fc.nat(40), seq: fc.integer({ min: -1, max: 40 }), count: fc.integer({ min: -1, max: 12 }) }),
      { freq: 3 },
    );
    fc.assert(
      fc.property(run, damage, (events, broken) => {
        const stored = JSON.parse(JSON.stringify(compactInputs(events))) as ReturnType<typeof compactInputs>;
        const steps = events.map((e, i) => ({
          seq: e.seq,
          kind: e.kind,
          input: stored[i]!.input,
          prefix: stored[i]!.prefix,
        }));
        if (broken && steps.length > 0)
          steps[broken.at % steps.length]!.prefix = { seq: broken.seq, count: broken.count };
        // What the whole expansion gives for step i, or the refusal it throws on reaching it.
        const whole = steps.map((_, i) => {
          try {
            return { input: expandInputs(steps.slice(0, i + 1))[i] };
          } catch (e) {
            return { refused: (e as Error).message };
          }
        });
        steps.forEach((_, i) => {
          const expected = whole[i]!;
          let one: { input?: unknown; refused?: string };
          try {
            one = { input: expandInputAt(steps, i) };
          } catch (e) {
            one = { refused: (e as Error).message };
          }
          // Never refused where the whole run expands; refused as it is where the whole run stops at this very step.
          // (A refusal on another step's pointer stops the whole run; the step alone may not need that step.)
          if (!("refused" in expected)) expect(canonicalJson(one.input)).toBe(canonicalJson(expected.input));
          else if (expected.refused!.startsWith(`step ${steps[i]!.seq} `)) expect(one).toEqual(expected);
          if ("refused" in one) expect(expected).toHaveProperty("refused");
        });
      }),
      { numRuns: 300 },
    );
  });
});
