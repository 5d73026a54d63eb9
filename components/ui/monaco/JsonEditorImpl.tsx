"use client";

import Editor, { DiffEditor } from "@monaco-editor/react";
import { useEffect } from "react";
import { useTheme } from "../useTheme";
import { setJsonSchemas } from "./setup";

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
        theme={dark ? "vs-dark" : "light"}
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
};

export function JsonDiffImpl({ original, modified, height = 320, language = "json" }: JsonDiffProps) {
  const { dark } = useTheme();
  return (
    <div className="overflow-hidden rounded-md border border-slate-300" data-testid="monaco-diff">
      <DiffEditor
        height={height}
        language={language}
        theme={dark ? "vs-dark" : "light"}
        original={original}
        modified={modified}
        options={{ ...OPTIONS, readOnly: true, renderSideBySide: true, originalEditable: false }}
      />
    </div>
  );
}
