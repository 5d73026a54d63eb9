import { prettyJson } from "@/lib/format";
import { ScrollFrame } from "./ScrollFrame";

/**
 * A read-only JSON (or text) block: wraps long lines, scrolls tall ones. The scroll frame is
 * focusable and named (`name`, else `label`, else "JSON"), so a keyboard can scroll it too and a
 * screen reader says what it holds.
 */
export function JsonBlock({ value, label, name }: { value: unknown; label?: string; name?: string }) {
  const text = prettyJson(value);
  return (
    <div className="min-w-0">
      {label ? <div className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</div> : null}
      {text === "" || value === null ? (
        <div className="rounded border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-500">
          null
        </div>
      ) : (
        <ScrollFrame
          as="pre"
          className="max-h-96 overflow-auto rounded border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-slate-800"
          label={name ?? label ?? "JSON"}
        >
          {text}
        </ScrollFrame>
      )}
    </div>
  );
}
