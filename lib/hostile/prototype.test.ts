import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importDocument } from "@/lib/ingest";
import { decodeOtlpJson } from "@/lib/ingest/otlp";
import { unflatten } from "@/lib/ingest/otlp/messages";
import { stripNul } from "@/lib/executors/live";

// Issue 10 item 1: one span with a `__proto__` attribute segment must not
// reach Object.prototype (it used to: every later database call then failed).

const FIXTURE = path.join(import.meta.dirname, "../ingest/otlp/__fixtures__/openinference-handwritten.json");

type Attribute = { key: string; value: Record<string, unknown> };
type Export = { resourceSpans: { scopeSpans: { spans: { name: string; attributes: Attribute[] }[] }[] }[] };

function hostileExport(extra: Attribute[]): string {
  const doc = JSON.parse(readFileSync(FIXTURE, "utf8")) as Export;
  const llm = doc.resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => s.name === "ChatCompletion")!;
  llm.attributes.push(...extra);
  return JSON.stringify(doc);
}

const POLLUTING = ["title", "polluted", "isAdmin", "then"];

afterEach(() => {
  // Clean up if a regression did pollute, so one failure does not cascade.
  for (const key of POLLUTING) Reflect.deleteProperty(Object.prototype, key);
});

describe("untrusted keys never reach a prototype", () => {
  it("an OpenInference span with __proto__, constructor and prototype segments imports without polluting", () => {
    const body = hostileExport([
      { key: "llm.input_messages.__proto__.title", value: { stringValue: "pwned" } },
      { key: "llm.input_messages.0.message.__proto__.polluted", value: { stringValue: "yes" } },
      { key: "llm.input_messages.constructor.prototype.isAdmin", value: { boolValue: true } },
      { key: "llm.output_messages.0.__proto__.then", value: { stringValue: "x" } },
    ]);
    const result = importDocument(body);
    for (const key of POLLUTING) expect(Object.hasOwn(Object.prototype, key)).toBe(false);
    expect(({} as Record<string, unknown>).title).toBeUndefined();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.sessions).toHaveLength(1);
    // The rest of the span still imported: the first model call kept its two input messages.
    const first = result.sessions[0]!.events.find((e) => e.kind === "model_call")!;
    expect(JSON.stringify(first.input)).toContain("Refund order 4821");
  });

  it("unflatten leaves out reserved segments and says so", () => {
    const problems: string[] = [];
    const tree = unflatten({ "0.message.role": "user", "__proto__.x": 1, "0.constructor.y": 2 }, (m) =>
      problems.push(m),
    );
    expect(Object.getPrototypeOf(tree)).toBeNull();
    expect(JSON.parse(JSON.stringify(tree))).toEqual({ "0": { message: { role: "user" } } });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('"__proto__.x"');
    expect(Object.hasOwn(Object.prototype, "x")).toBe(false);
  });

  it("a kvlist attribute named __proto__ stays data and does not change the attributes' prototype", () => {
    const decoded = decodeOtlpJson(
      hostileExport([
        {
          key: "meta",
          value: {
            kvlistValue: {
              values: [
                {
                  key: "__proto__",
                  value: { kvlistValue: { values: [{ key: "title", value: { stringValue: "p" } }] } },
                },
              ],
            },
          },
        },
        {
          key: "__proto__",
          value: { kvlistValue: { values: [{ key: "gen_ai.system", value: { stringValue: "evil" } }] } },
        },
      ]),
    );
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    const span = decoded.spans.find((s) => s.name === "ChatCompletion")!;
    expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype);
    expect(span.attributes["gen_ai.system"]).toBeUndefined();
    expect(JSON.stringify(span.attributes.meta)).toBe('{"__proto__":{"title":"p"}}');
    expect(Object.keys(span.attributes)).toContain("__proto__");
  });

  it("stripNul keeps a __proto__ key as data", () => {
    const input = JSON.parse('{"__proto__": {"a": "x\\u0000"}}') as Record<string, unknown>;
    const { value, replaced } = stripNul(input);
    expect(replaced).toBe(1);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"a":"x\uFFFD"}}');
  });
});
