import { describe, expect, it } from "vitest";
import { platformSession, stringTags } from "./session-summary";
import type { ImportedSession } from "./types";

const toolCall = (seq: number, name: string): ImportedSession["events"][number] => ({
  seq,
  kind: "tool_call",
  name,
  input: { callId: `c${seq}`, args: {} },
  output: null,
  error: null,
  status: "completed",
  startedAt: null,
  durationMs: null,
  usage: null,
  parentSeq: null,
  cacheKey: null,
  occurrence: null,
});

describe("platformSession: outside keys stay data", () => {
  it("keeps __proto__ and constructor as a trace's own fields and tool names, and reaches no prototype", () => {
    const details = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":1}',
    ) as Record<string, unknown>;
    const session = platformSession({
      format: "langfuse",
      externalId: "t-1",
      title: null,
      agent: { name: "agent", adapter: "generic" },
      version: null,
      starts: [1_000],
      ends: [2_000],
      open: false,
      details,
      events: [toolCall(0, "constructor"), toolCall(1, "__proto__"), toolCall(2, "constructor")],
      schemaOf: (tool) => (tool === "__proto__" ? { schema: { type: "object" } } : null),
    });

    expect(session.tools).toEqual([{ name: "__proto__", schema: { type: "object" } }, { name: "constructor" }]);
    const kept = (session.metadata as Record<string, Record<string, unknown>>).langfuse!;
    expect(Object.keys(kept)).toEqual(["__proto__", "constructor", "a"]);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(session.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(session.agentVersion).toEqual({ version: "unknown", capabilities: [] });
    expect(session.startedAt).toBe("1970-01-01T00:00:01.000Z");
    expect(session.endedAt).toBe("1970-01-01T00:00:02.000Z");
  });

  it("keeps only the string tags", () => {
    expect(stringTags(["prod", 1, null, { __proto__: "x" }, "__proto__"])).toEqual(["prod", "__proto__"]);
    expect(stringTags(JSON.parse('{"__proto__":["a"]}') as unknown)).toEqual([]);
  });
});
