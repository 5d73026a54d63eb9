"use client";

import { useEffect, useRef, useState } from "react";
import { JsonEditor } from "@/components/ui/monaco";
import { canonicalJson, parseJsonText } from "@/lib/replay";
import { sameDocument } from "./editor-state";

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
  // What the editor is told to show changes only when the value changes from
  // outside (the whole-document JSON), never from typing here: a render that
  // lags behind typing must not write older text over newer.
  const [external, setExternal] = useState(() => JSON.stringify(value, null, 2) ?? "");
  const typed = useRef(external);
  const [error, setError] = useState<string | null>(null);

  // The last value typed here: its echo through the document is not an outside change.
  const emitted = useRef(new Set<string | undefined>());

  useEffect(() => {
    if (emitted.current.has(canonicalJson(value))) return;
    const parsed = parseJsonText(typed.current);
    if (!parsed.ok || !sameDocument(parsed.value, value)) {
      const next = JSON.stringify(value, null, 2) ?? "";
      setExternal((previous) => (previous === next ? `${next}\n` : next));
      typed.current = next;
      emitted.current.clear();
      setError(null);
    }
  }, [value]);

  return (
    <div>
      <JsonEditor
        value={external}
        path={path}
        height={height}
        ariaLabel={ariaLabel}
        onChange={(next) => {
          typed.current = next;
          const parsed = parseJsonText(next);
          if (parsed.ok) {
            setError(null);
            if (!sameDocument(parsed.value, value)) {
              emitted.current.add(canonicalJson(parsed.value));
              onChange(parsed.value);
            }
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
