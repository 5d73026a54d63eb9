import { Policy, canonicalJson, parseJsonText, type PolicyIssue } from "@/lib/replay";

/**
 * The two-way sync between the visual editor and the JSON text (pure, so it
 * is unit-tested). One document: `doc` is the last document that passed the
 * schema, and the visual side always shows it; `text` is what the JSON editor
 * shows. A visual edit rewrites the text; a text edit updates `doc` when the
 * text parses and fits the schema, and otherwise keeps `doc` and says why.
 */
export type TextStatus =
  { kind: "ok" } | { kind: "invalid_json"; message: string } | { kind: "invalid_schema"; issues: PolicyIssue[] };

export type EditorState = {
  doc: Policy;
  text: string;
  status: TextStatus;
  /**
   * What the JSON editor is told to show: it changes only when the document
   * changes from outside the JSON editor, so a render that lags behind typing
   * never writes older text over newer. A new external text equal to the
   * previous one gets a trailing newline, so the editor still hears of it.
   */
  external: string;
};

export type EditorAction =
  | { type: "visual"; doc: Policy }
  | { type: "text"; text: string }
  | { type: "reset"; doc: Policy }
  | { type: "restore"; state: EditorState };

export function formatDocument(doc: unknown): string {
  return JSON.stringify(doc, null, 2);
}

export function initialEditorState(doc: Policy): EditorState {
  const text = formatDocument(doc);
  return { doc, text, status: { kind: "ok" }, external: text };
}

/** Reads a text as a policy document: the parsed policy, or why it is not one. */
export function readPolicyText(
  text: string,
): { ok: true; doc: Policy } | { ok: false; status: Exclude<TextStatus, { kind: "ok" }> } {
  const json = parseJsonText(text);
  if (!json.ok) return { ok: false, status: { kind: "invalid_json", message: json.message } };
  const parsed = Policy.safeParse(json.value);
  if (!parsed.success) {
    return {
      ok: false,
      status: {
        kind: "invalid_schema",
        issues: parsed.error.issues.map((i) => ({
          code: "schema" as const,
          severity: "error" as const,
          path: i.path.filter((p): p is string | number => typeof p !== "symbol"),
          message: i.message,
        })),
      },
    };
  }
  return { ok: true, doc: parsed.data };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case "visual":
    case "reset": {
      const formatted = formatDocument(action.doc);
      const text = formatted === state.external ? `${formatted}\n` : formatted;
      return { doc: action.doc, text, status: { kind: "ok" }, external: text };
    }
    case "restore":
      return action.state;
    case "text": {
      if (action.text === state.text) return state;
      const read = readPolicyText(action.text);
      // The text stays as typed (no reformatting under the cursor).
      return read.ok
        ? { ...state, doc: read.doc, text: action.text, status: { kind: "ok" } }
        : { ...state, text: action.text, status: read.status };
    }
  }
}

/** Whether two documents are the same policy (same canonical form, so the same hash). */
export function sameDocument(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Unsaved when the text does not stand for the saved document. */
export function isDirty(state: EditorState, saved: Policy | null): boolean {
  return state.status.kind !== "ok" || saved === null || !sameDocument(state.doc, saved);
}

// ---------------------------------------------------------------------------
// Drafts kept in localStorage, keyed by policy and the version they started from.

export function draftKey(policyId: string, baseVersion: number): string {
  return `branchpoint:policy-draft:${policyId}:v${baseVersion}`;
}

export type Draft = { text: string; savedAt: string };

export function parseDraft(raw: string | null): Draft | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as unknown;
    if (
      typeof value === "object" &&
      value !== null &&
      typeof (value as Draft).text === "string" &&
      typeof (value as Draft).savedAt === "string"
    ) {
      return { text: (value as Draft).text, savedAt: (value as Draft).savedAt };
    }
  } catch {
    // A draft that does not read is no draft.
  }
  return null;
}

/** The state a stored draft restores (its text, invalid or not, on top of the saved document). */
export function restoreDraft(saved: Policy, draft: Draft): EditorState {
  const state = editorReducer(initialEditorState(saved), { type: "text", text: draft.text });
  return { ...state, external: state.text };
}
