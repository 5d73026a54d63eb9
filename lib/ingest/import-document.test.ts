import { describe, expect, it } from "vitest";
import {
  detectFormat,
  importDocument,
  importers,
  locateJsonError,
  parseJsonText,
  type BytesImporter,
  type ImportResult,
  type JsonImporter,
} from "@/lib/ingest";

const issuesOf = (result: ImportResult) => {
  if (result.ok) throw new Error("expected issues, got ok");
  return result.issues;
};

const native = {
  agent: { name: "a", adapter: "generic" },
  agentVersion: { version: "1", capabilities: [] },
  events: [{ kind: "final_output", name: "final_output", output: "hi" }],
};

describe("malformed input", () => {
  it("names the line and column of a JSON syntax error", () => {
    const text = '{\n  "agent": {"name": "a",},\n  "events": []\n}';
    const result = importDocument(text);
    expect(result.format).toBeNull();
    expect(issuesOf(result)).toEqual([
      {
        path: "",
        message: `malformed JSON at line 2, column 25: expected a property name in double quotes, found "}"`,
      },
    ]);
  });

  it.each([
    ['{"a": 1', 1, 8, "expected ',' or '}' in an object, found the end of the input"],
    ["[1, 2,]", 1, 7, 'expected a value, found "]"'],
    ['{"a": tru}', 1, 10, 'expected true, found "}"'],
    ['{"a": "x\ny"}', 1, 9, "control character in string (escape it)"],
    ["[01]", 1, 3, "expected ',' or ']' in an array, found \"1\""],
    ['{"a": 1} {"b": 2}', 1, 10, 'unexpected "{" after the end of the JSON value'],
    ['["\\x"]', 1, 4, "bad escape in string"],
  ])("locates %j", (text, line, column, message) => {
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(locateJsonError(text)).toMatchObject({ line, column, message });
  });

  it("finds no error in valid JSON", () => {
    for (const text of ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}', " 0 ", '"x"']) {
      expect(locateJsonError(text)).toBeNull();
    }
  });

  it("reports every malformed JSONL line", () => {
    const text = [JSON.stringify(native), '{"agent": }', JSON.stringify(native), "{oops}"].join("\n");
    expect(issuesOf(importDocument(text))).toEqual([
      { path: "line 2", message: 'malformed JSON at column 11: expected a value, found "}"' },
      { path: "line 4", message: 'malformed JSON at column 2: expected a property name in double quotes, found "o"' },
    ]);
  });

  it("reports an empty document", () => {
    expect(importDocument("  \n")).toEqual({
      ok: false,
      format: null,
      issues: [{ path: "", message: "the document is empty" }],
    });
  });

  it("says a truncated JSON document is malformed JSON, where, and that it looks cut short", () => {
    const whole = JSON.stringify(native);
    const cut = whole.slice(0, 40);
    expect(importDocument(cut, { filename: "session.json" })).toEqual({
      ok: false,
      format: null,
      summary:
        "Malformed JSON at line 1, column 41: expected ',' or '}' in an object, found the end of the input (the text ends before the JSON does: was the file cut short?).",
      issues: [
        {
          path: "",
          message: "malformed JSON at line 1, column 41: expected ',' or '}' in an object, found the end of the input",
        },
      ],
    });
    // An error in the middle is not called cut short.
    expect(importDocument('{"a": 1,, "b": 2}')).toMatchObject({
      summary: 'Malformed JSON at line 1, column 9: expected a property name in double quotes, found ",".',
    });
    const lines = [JSON.stringify(native), '{"agent": }', JSON.stringify(native), "{oops}"].join("\n");
    expect(importDocument(lines)).toMatchObject({
      summary: "Malformed JSON Lines: 2 lines are not valid JSON, the first at line 2.",
    });
  });

  it("says bytes that are not text are not a valid OTLP protobuf export, and what was expected", () => {
    expect(importDocument(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), { filename: "trace.pb" })).toEqual({
      ok: false,
      format: null,
      summary:
        "Not a valid OTLP protobuf export: expected the bytes of an OTLP ExportTraceServiceRequest (what an OTLP/HTTP trace exporter sends, gzipped or not); nor is it JSON text (the bytes are not valid UTF-8).",
      issues: [
        { path: "", message: "the body is not a protobuf ExportTraceServiceRequest: invalid wire type 7 at offset 4" },
        { path: "", message: "the document is not valid UTF-8 text" },
      ],
    });
    // A file named .pb that happens to be text is still reported as not protobuf, not as bad JSON first.
    expect(importDocument("hello", { filename: "trace.pb" })).toEqual({
      ok: false,
      format: null,
      summary:
        "Not a valid OTLP protobuf export: expected the bytes of an OTLP ExportTraceServiceRequest (what an OTLP/HTTP trace exporter sends, gzipped or not).",
      issues: [
        { path: "", message: "the body is not a protobuf ExportTraceServiceRequest: invalid wire type 4 at offset 3" },
        { path: "", message: 'malformed JSON at line 1, column 1: expected a value, found "h"' },
      ],
    });
  });
});

describe("format detection", () => {
  it("names the accepted formats when none matches", () => {
    const result = importDocument(JSON.stringify({ resourceSpanz: [] }));
    expect(result).toEqual({
      ok: false,
      format: null,
      issues: [
        {
          path: "",
          message: expect.stringContaining("unrecognized document format; accepted formats: native (") as unknown,
        },
      ],
    });
    expect(issuesOf(result)[0]!.message).toContain("; openai-chat (");
  });

  it("detects native and openai-chat", () => {
    expect(detectFormat({ shape: "document", value: native }, importers)).toBe("native");
    expect(detectFormat({ shape: "document", value: [native] }, importers)).toBe("native");
    expect(detectFormat({ shape: "document", value: { messages: [] } }, importers)).toBe("openai-chat");
    expect(detectFormat({ shape: "document", value: [{ role: "user", content: "x" }] }, importers)).toBe("openai-chat");
    expect(detectFormat({ shape: "document", value: [{ task_id: 1, traj: [] }] }, importers)).toBe("openai-chat");
    expect(detectFormat({ shape: "document", value: [] }, importers)).toBeNull();
  });

  it("reads bytes, without a byte-order mark", () => {
    const bytes = new TextEncoder().encode(`\uFEFF${JSON.stringify(native)}`);
    const result = importDocument(bytes);
    expect(result.ok && result.sessions[0]!.events[0]!.output).toBe("hi");
  });

  it("reads a document as the format asked for, reporting that format's issues", () => {
    const result = importDocument(JSON.stringify({ messages: [] }), { format: "native" });
    expect(result.format).toBe("native");
    expect(issuesOf(result).map((issue) => issue.path)).toEqual(["agent", "agentVersion", "events", "messages"]);
  });

  it("says when a format has no importer in this build", () => {
    const result = importDocument("{}", { format: "otlp-protobuf", importers: [importers[0]!] });
    expect(issuesOf(result)).toEqual([
      { path: "", message: 'format "otlp-protobuf" is not available; available formats: native' },
    ]);
  });

  it("takes more importers through the registry shape: JSON ones by detection, binary ones for non-JSON input", () => {
    const otlpJson: JsonImporter = {
      format: "otlp-json",
      label: "otlp-json (OTLP/HTTP JSON)",
      accepts: "json",
      detect: (input) =>
        input.shape === "document" &&
        typeof input.value === "object" &&
        input.value !== null &&
        "resourceSpans" in input.value,
      import: () => ({ ok: false, issues: [{ path: "resourceSpans", message: "seen by otlp-json" }] }),
    };
    const otlpProto: BytesImporter = {
      format: "otlp-protobuf",
      label: "otlp-protobuf (OTLP/HTTP protobuf)",
      accepts: "bytes",
      detect: (bytes) => bytes[0] === 0x0a,
      import: (bytes) => ({ ok: false, issues: [{ path: "", message: `seen ${bytes.length} bytes` }] }),
      expected: "an OTLP protobuf export",
      fileName: /\.pb$/,
      whyNot: () => [{ path: "", message: "not protobuf" }],
    };
    const all = [...importers.filter((i) => !i.format.startsWith("otlp-")), otlpJson, otlpProto];
    expect(importDocument('{"resourceSpans": []}', { importers: all })).toEqual({
      ok: false,
      format: "otlp-json",
      issues: [{ path: "resourceSpans", message: "seen by otlp-json" }],
    });
    expect(importDocument(new Uint8Array([0x0a, 0x02, 0x08, 0x01]), { importers: all })).toEqual({
      ok: false,
      format: "otlp-protobuf",
      issues: [{ path: "", message: "seen 4 bytes" }],
    });
    expect(importDocument("{}", { importers: all, format: "otlp-protobuf" }).format).toBe("otlp-protobuf");
    // A detector that throws is treated as "not mine".
    const throwing: JsonImporter = {
      ...otlpJson,
      detect: () => {
        throw new Error("boom");
      },
    };
    expect(importDocument(JSON.stringify(native), { importers: [throwing, ...importers] }).format).toBe("native");
  });

  it("treats a pretty-printed document with an error as one document, not JSONL", () => {
    const parsed = parseJsonText('[\n  {},\n  {"a": 1,}\n]');
    expect(parsed).toEqual({
      ok: false,
      summary: 'Malformed JSON at line 3, column 11: expected a property name in double quotes, found "}".',
      issues: [
        {
          path: "",
          message: 'malformed JSON at line 3, column 11: expected a property name in double quotes, found "}"',
        },
      ],
    });
  });
});
