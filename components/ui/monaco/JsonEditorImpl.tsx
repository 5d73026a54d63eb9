"use client";

import Editor, { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTheme } from "../useTheme";
import { ARIA_LABEL_OPTION, MONACO_THEMES, setJsonSchemas } from "./setup";

export type JsonEditorProps = {
  value: string;
  onChange?: (value: string) => void;
  /** Model path; a schema registered with a matching fileMatch applies to it (e.g. "policy.json"). */
  path?: string;
  schema?: { uri: string; schema: unknown };
  height?: number | string;
  readOnly?: boolean;
  ariaLabel?: string;
};

const OPTIONS = {
  minimap: { enabled: false },
  fontSize: 12,
  lineNumbersMinChars: 3,
  scrollBeyondLastLine: false,
  tabSize: 2,
  automaticLayout: true,
  wordWrap: "on",
  formatOnPaste: true,
} as const;

export default function JsonEditorImpl({
  value,
  onChange,
  path,
  schema,
  height = 320,
  readOnly,
  ariaLabel,
}: JsonEditorProps) {
  const { dark } = useTheme();
  useEffect(() => {
    if (schema && path) setJsonSchemas([{ uri: schema.uri, fileMatch: [path], schema: schema.schema }]);
  }, [schema, path]);
  return (
    <div
      className="overflow-hidden rounded-md border border-slate-300"
      data-testid={path ? `monaco-${path}` : "monaco"}
    >
      <Editor
        height={height}
        language="json"
        theme={dark ? MONACO_THEMES.dark : MONACO_THEMES.light}
        path={path}
        value={value}
        onChange={(v) => onChange?.(v ?? "")}
        options={{ ...OPTIONS, readOnly, ariaLabel: ariaLabel ?? "JSON editor" }}
      />
    </div>
  );
}

export type JsonDiffProps = {
  original: string;
  modified: string;
  height?: number | string;
  language?: "json" | "plaintext";
  /** Fold the unchanged stretches and open at the first difference (a changed pair of a long prompt). */
  focusChanges?: boolean;
  /** What each side is, for screen readers (default: a replay's base and branch). */
  sides?: { original: string; modified: string };
};

const SIDES = { original: "Base", modified: "Branch" };

export function JsonDiffImpl({
  original,
  modified,
  height = 320,
  language = "json",
  focusChanges,
  sides = SIDES,
}: JsonDiffProps) {
  const originalLabel = `${sides.original} (read-only)`;
  const modifiedLabel = `${sides.modified} (read-only)`;
  const { dark } = useTheme();
  const [firstChange, setFirstChange] = useState<number | null>(null);
  const editorRef = useRef<Parameters<DiffOnMount>[0] | null>(null);
  // Detach the models before the editor goes ("TextModel got disposed before DiffEditorWidget model got reset"
  // otherwise, when the view leaves or switches pairs), then dispose them: this cleanup runs before the library's.
  useEffect(
    () => () => {
      const editor = editorRef.current;
      if (!editor) return;
      const models = editor.getModel();
      editor.setModel(null);
      models?.original.dispose();
      models?.modified.dispose();
    },
    [],
  );
  // One options object per label and folding: the wrapper hands each new object to the diff editor's updateOptions,
  // which lays both sides out again (and empties their labels, below), so a re-render must not make one.
  const options = useMemo(
    () => ({
      ...OPTIONS,
      readOnly: true,
      renderSideBySide: true,
      originalEditable: false,
      originalAriaLabel: originalLabel,
      modifiedAriaLabel: modifiedLabel,
      ...(focusChanges
        ? { hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 5, revealLineCount: 20 } }
        : {}),
    }),
    [originalLabel, modifiedLabel, focusChanges],
  );
  // The diff editor's originalAriaLabel/modifiedAriaLabel do not reach the inner editors' text input for long
  // (monaco 0.57): whenever the diff editor re-applies its options to them (a new options object, a layout that
  // re-reads whether the sides fit) it sets their ariaLabel to "" unless that very change carried the label, and
  // screen readers then announce an unnamed field. Name each side directly, and put the name back the moment
  // anything changes it, within the same change, so no reader (or audit) ever sees the field unnamed.
  const labels = useRef({ original: originalLabel, modified: modifiedLabel });
  labels.current = { original: originalLabel, modified: modifiedLabel };
  const nameSides = (editor: Parameters<DiffOnMount>[0]) => {
    editor.getOriginalEditor().updateOptions({ ariaLabel: labels.current.original });
    editor.getModifiedEditor().updateOptions({ ariaLabel: labels.current.modified });
  };
  const keepNamed = (editor: Parameters<DiffOnMount>[0]) => {
    const ariaLabel = ARIA_LABEL_OPTION;
    for (const [inner, side] of [
      [editor.getOriginalEditor(), "original"],
      [editor.getModifiedEditor(), "modified"],
    ] as const) {
      inner.onDidChangeConfiguration((change) => {
        const wanted = labels.current[side];
        if (change.hasChanged(ariaLabel) && inner.getOption(ariaLabel) !== wanted)
          inner.updateOptions({ ariaLabel: wanted });
      });
    }
    nameSides(editor);
  };
  const onMount: DiffOnMount = (editor) => {
    editorRef.current = editor;
    keepNamed(editor);
    if (!focusChanges) return;
    const reveal = () => {
      const first = editor.getLineChanges()?.[0];
      if (!first) return;
      const line = Math.max(first.modifiedStartLineNumber, 1);
      editor.getModifiedEditor().revealLineNearTop(line);
      setFirstChange(line);
    };
    // The diff is computed in a worker: reveal once it is there (and again if it is recomputed).
    editor.onDidUpdateDiff(reveal);
    reveal();
  };
  return (
    <div
      className="overflow-hidden rounded-md border border-slate-300"
      data-testid="monaco-diff"
      data-first-change-line={firstChange ?? undefined}
    >
      <DiffEditor
        height={height}
        language={language}
        theme={dark ? MONACO_THEMES.dark : MONACO_THEMES.light}
        original={original}
        modified={modified}
        onMount={onMount}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        options={options}
      />
    </div>
  );
}
