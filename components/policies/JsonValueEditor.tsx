"use client";

import { useEffect, useState } from "react";
import { JsonEditor } from "@/components/ui/monaco";
import { sameDocument } from "./editorState";

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "not JSON" };
  }
}

/**
 * A small Monaco editor for one JSON value inside the document (a static
 * case's `match` or `result`). Text that does not parse stays here, marked,
 * and the document keeps the last value that did.
 */
export function JsonValueEditor({
  value,
  onChange,
  path,
  ariaLabel,
  height = 72,
}: {
  value: unknown;
  onChange: (value: unknown) => void;
  path: string;
  ariaLabel: string;
  height?: number;
}) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2) ?? "");
  const [error, setError] = useState<string | null>(null);

  // A change made elsewhere (the whole-document JSON) shows here too.
  useEffect(() => {
    const parsed = tryParse(text);
    if (!parsed.ok || !sameDocument(parsed.value, value)) {
      setText(JSON.stringify(value, null, 2) ?? "");
      setError(null);
    }
    // Only when the value changes from outside; `text` is ours.
  }, [value]);

  return (
    <div>
      <JsonEditor
        value={text}
        path={path}
        height={height}
        ariaLabel={ariaLabel}
        onChange={(next) => {
          setText(next);
          const parsed = tryParse(next);
          if (parsed.ok) {
            setError(null);
            if (!sameDocument(parsed.value, value)) onChange(parsed.value);
          } else {
            setError(parsed.message);
          }
        }}
      />
      {error ? (
        <p role="alert" className="mt-1 text-xs text-rose-700">
          Not valid JSON ({error}); the policy keeps the last valid value.
        </p>
      ) : null}
    </div>
  );
}
