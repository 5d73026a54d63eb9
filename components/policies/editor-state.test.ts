import { describe, expect, it } from "vitest";
import { RECOMMENDED_RCA_POLICY, toolLevelPreset, type Policy } from "@/lib/replay";
import {
  draftKey,
  editorReducer,
  formatDocument,
  initialEditorState,
  isDirty,
  parseDraft,
  restoreDraft,
} from "./editor-state";
import { issuesAt, pathLabel } from "./issues";

const base: Policy = RECOMMENDED_RCA_POLICY;
const strict: Policy = { ...base, tools: toolLevelPreset("recorded-only") };

describe("two-way sync reducer", () => {
  it("a visual edit rewrites the JSON text", () => {
    const s = editorReducer(initialEditorState(base), { type: "visual", doc: strict });
    expect(s.doc).toEqual(strict);
    expect(JSON.parse(s.text)).toEqual(strict);
    expect(s.status).toEqual({ kind: "ok" });
  });

  it("a valid text edit updates the document and keeps the text as typed", () => {
    const typed = JSON.stringify(strict);
    const s = editorReducer(initialEditorState(base), { type: "text", text: typed });
    expect(s.doc).toEqual(strict);
    expect(s.text).toBe(typed);
    expect(s.status.kind).toBe("ok");
  });

  it("invalid JSON keeps the visual side on the last valid document and says so", () => {
    const s = editorReducer(initialEditorState(base), { type: "text", text: '{"model": ' });
    expect(s.doc).toEqual(base);
    expect(s.text).toBe('{"model": ');
    expect(s.status.kind).toBe("invalid_json");
  });

  it("JSON that breaks the schema keeps the last valid document and names the path", () => {
    const bad = formatDocument({ ...base, tools: { default: { type: "histroy" } } });
    const s = editorReducer(initialEditorState(base), { type: "text", text: bad });
    expect(s.doc).toEqual(base);
    expect(s.status.kind).toBe("invalid_schema");
    expect(s.status.kind === "invalid_schema" && s.status.issues[0]?.path).toEqual(["tools", "default", "type"]);
  });

  it("fixing the text after an error brings the visual side along", () => {
    let s = editorReducer(initialEditorState(base), { type: "text", text: "{" });
    s = editorReducer(s, { type: "text", text: formatDocument(strict) });
    expect(s.doc).toEqual(strict);
    expect(s.status.kind).toBe("ok");
  });

  it("the JSON editor is told of outside changes only, even when the new text equals the last one it was told", () => {
    const start = initialEditorState(base);
    const typed = editorReducer(start, { type: "text", text: formatDocument(strict) });
    expect(typed.external).toBe(start.external); // typing never feeds back
    const back = editorReducer(typed, { type: "visual", doc: base });
    expect(back.external).not.toBe(start.external);
    expect(JSON.parse(back.external)).toEqual(base);
    expect(back.text).toBe(back.external);
  });

  it("the same text twice is no change (same state object)", () => {
    const s = initialEditorState(base);
    expect(editorReducer(s, { type: "text", text: s.text })).toBe(s);
  });

  it("dirty: a different document, or text that does not stand for a document; key order does not count", () => {
    const s = initialEditorState(base);
    expect(isDirty(s, base)).toBe(false);
    const reordered = editorReducer(s, {
      type: "text",
      text: JSON.stringify({ tools: base.tools, maxSteps: 100, drift: base.drift, model: base.model }),
    });
    expect(isDirty(reordered, base)).toBe(false);
    expect(isDirty(editorReducer(s, { type: "visual", doc: strict }), base)).toBe(true);
    expect(isDirty(editorReducer(s, { type: "text", text: "{" }), base)).toBe(true);
    expect(isDirty(s, null)).toBe(true);
  });
});

describe("drafts", () => {
  it("are keyed by policy and base version", () => {
    expect(draftKey("p1", 3)).toBe("branchpoint:policy-draft:p1:v3");
    expect(draftKey("p1", 3)).not.toBe(draftKey("p1", 4));
  });

  it("read back what was stored, and nothing from garbage", () => {
    expect(parseDraft(JSON.stringify({ text: "{", savedAt: "2026-01-01T00:00:00Z" }))).toEqual({
      text: "{",
      savedAt: "2026-01-01T00:00:00Z",
    });
    expect(parseDraft("not json")).toBeNull();
    expect(parseDraft(JSON.stringify({ text: 1 }))).toBeNull();
    expect(parseDraft(null)).toBeNull();
  });

  it("restore an invalid text over the saved document", () => {
    const s = restoreDraft(base, { text: "{ oops", savedAt: "x" });
    expect(s.doc).toEqual(base);
    expect(s.text).toBe("{ oops");
    expect(s.external).toBe("{ oops");
    expect(s.status.kind).toBe("invalid_json");
  });
});

describe("issues by path", () => {
  const issues = [
    { code: "schema" as const, severity: "error" as const, path: ["tools", "default"], message: "a" },
    { code: "schema" as const, severity: "error" as const, path: ["tools", "default", "scope"], message: "b" },
    { code: "schema" as const, severity: "error" as const, path: ["model"], message: "c" },
  ];
  it("finds issues at a path, or within it", () => {
    expect(issuesAt(issues, ["tools", "default"]).map((i) => i.message)).toEqual(["a"]);
    expect(issuesAt(issues, ["tools", "default"], { within: true }).map((i) => i.message)).toEqual(["a", "b"]);
    expect(issuesAt(issues, ["tools"]).map((i) => i.message)).toEqual([]);
  });
  it("labels paths for people", () => {
    expect(pathLabel(["tools", "overrides", "refund_payment", "cases", 0])).toBe(
      "tools.overrides.refund_payment.cases[0]",
    );
    expect(pathLabel([])).toBe("(document)");
  });
});
