import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { anthropicWire } from "./anthropic";
import { openAiResponsesWire } from "./openai-responses";
import type { WireFormat } from "./types";

// Any body a client can send is either read or refused as invalid_input with a path: never another
// error, never a prototype touched. Bodies are built from the formats' own keys so the generator
// reaches deep into items and blocks, with `__proto__` and `constructor` among the keys.

const KEYS = [
  "type",
  "role",
  "content",
  "text",
  "call_id",
  "name",
  "arguments",
  "output",
  "id",
  "input",
  "tool_use_id",
  "thinking",
  "image_url",
  "input_schema",
  "parameters",
  "__proto__",
  "constructor",
];
const VALUES = [
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "input_text",
  "output_text",
  "text",
  "tool_use",
  "tool_result",
  "thinking",
  "image",
  "user",
  "assistant",
  "system",
  "developer",
  "tool",
  "custom",
  "function",
  "{}",
  '{"a":1',
];

const leaf = fc.oneof(fc.constantFrom(...VALUES), fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("tree"), { maxKeys: 5 }),
  ),
}));

/** Mostly `good`, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 9 }, { arbitrary: tree, weight: 1 });

const word = (...words: string[]) => mostly(fc.constantFrom(...words));
const text = mostly(fc.string({ maxLength: 8 }));

/** Content parts and blocks: mostly the formats' own, any key may be missing or wrong. */
const part = fc.record(
  {
    type: word("input_text", "output_text", "text", "refusal", "input_image", "tool_use", "tool_result", "thinking"),
    text,
    refusal: text,
    image_url: text,
    id: text,
    name: word("f", ""),
    input: tree,
    tool_use_id: text,
    content: mostly(fc.oneof(fc.string(), fc.array(fc.record({ type: word("text", "input_text"), text })))),
    thinking: text,
    __proto__: tree,
  },
  { requiredKeys: [] },
);

/** A part, or now and then a value that is no object at all. */
const partOrJunk = fc.oneof({ arbitrary: part, weight: 9 }, { arbitrary: leaf, weight: 1 });

/** Items and messages of both formats, and objects of their keys with anything in them. */
const item = fc.oneof(
  fc.record(
    {
      type: word("message", "function_call", "function_call_output", "reasoning", "item_reference"),
      role: word("user", "assistant", "system", "developer", "tool"),
      content: mostly(fc.oneof(fc.string(), fc.array(partOrJunk, { maxLength: 3 }))),
      call_id: text,
      name: word("f", "transfer_to_x", ""),
      arguments: word("{}", '{"a":1}', '{"a":', "[]"),
      output: mostly(fc.oneof(fc.string(), fc.array(partOrJunk, { maxLength: 2 }))),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(leaf, fc.array(part, { maxLength: 3 }), part, tree), {
    maxKeys: 6,
  }),
);

/** A body with the format's top-level keys, then its JSON round trip (so `__proto__` is an own key). */
const body = fc
  .record(
    {
      model: mostly(fc.constant("m")),
      input: mostly(
        fc.array(fc.oneof({ arbitrary: item, weight: 19 }, { arbitrary: leaf, weight: 1 }), { maxLength: 6 }),
      ),
      messages: mostly(
        fc.array(fc.oneof({ arbitrary: item, weight: 19 }, { arbitrary: leaf, weight: 1 }), { maxLength: 6 }),
      ),
      instructions: mostly(fc.string()),
      system: mostly(fc.oneof(fc.string(), fc.array(partOrJunk, { maxLength: 2 }))),
      tools: mostly(
        fc.array(
          fc.record(
            {
              type: word("function", "custom", "web_search"),
              name: word("f", ""),
              parameters: tree,
              input_schema: mostly(fc.constant({ type: "object" })),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
      ),
      stream: mostly(fc.boolean()),
      temperature: mostly(fc.double({ noNaN: true, noDefaultInfinity: true })),
      max_tokens: mostly(fc.integer({ min: 1, max: 4096 })),
    },
    { requiredKeys: ["model"] },
  )
  .map((b) => JSON.parse(JSON.stringify(b).replaceAll('"constructor"', '"__proto__"')) as unknown);

function readsOrRefuses(format: WireFormat, value: unknown): void {
  try {
    const read = format.parseRequest(value);
    expect(Array.isArray(read.input.messages)).toBe(true);
    expect(typeof read.model).toBe("string");
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.code).toBe("invalid_input");
    expect(error.issues).toHaveLength(1);
    expect(error.message).toMatch(/^The request body's .+\.$/);
  }
  expect(({} as Record<string, unknown>).role).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty("type");
}

describe("hostile bodies", () => {
  for (const [name, format] of [
    ["responses", openAiResponsesWire],
    ["anthropic", anthropicWire],
  ] as const) {
    it(`${name}: every generated body is read or refused as invalid_input`, { timeout: 60_000 }, () => {
      fc.assert(
        fc.property(body, (value) => readsOrRefuses(format, value)),
        { numRuns: 1000 },
      );
      fc.assert(
        fc.property(fc.jsonValue(), (value) => readsOrRefuses(format, value)),
        { numRuns: 300 },
      );
    });
  }
});
