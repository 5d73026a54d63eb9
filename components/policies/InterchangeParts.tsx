"use client";

import type { InterchangeIssue } from "@/lib/replay";
import { FORM_LABELS, type importPolicyText } from "@/lib/policies/interchange";
import { Button } from "@/components/ui/Button";
import { pathLabel } from "./issues";
import { PolicyFileInput } from "./PolicyFileInput";

/** What a form cannot carry (or what an import was read with), path by path; or that everything is carried over. */
export function LossList({ issues, title }: { issues: readonly InterchangeIssue[]; title: string }) {
  if (issues.length === 0)
    return <p className="text-xs text-emerald-700">Everything in this policy is carried over.</p>;
  return (
    <div>
      <div className="text-xs font-semibold text-amber-900">{title}</div>
      <ul className="mt-1 space-y-1" data-testid="interchange-issues">
        {issues.map((i, k) => (
          <li key={k} className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 ring-1 ring-amber-200">
            <code className="font-mono">{pathLabel(i.path)}</code> · {i.code.replaceAll("_", " ")}: {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The import tab: paste or upload a policy in any form, read it into the editor, and say what came of it. */
export function ImportPane({
  text,
  onText,
  result,
  onImport,
}: {
  text: string;
  onText: (text: string) => void;
  result: ReturnType<typeof importPolicyText> | null;
  onImport: () => void;
}) {
  return (
    <div className="space-y-3">
      <p className="text-xs text-slate-600">
        Paste or upload Kitaru --tool-policy JSON, policy-levels JSON or a Branchpoint document: the form is detected.
        It replaces the editor&apos;s document (unsaved until you save).
      </p>
      <textarea
        aria-label="Policy to import"
        className="h-36 w-full rounded-md border border-slate-300 p-2 font-mono text-xs"
        value={text}
        onChange={(e) => onText(e.target.value)}
        placeholder='{"default": {"type": "history", "scope": "baseline", "on_miss": "fail"}, "tools": {}}'
      />
      <div className="flex flex-wrap items-center gap-2">
        <PolicyFileInput onText={onText} className="text-xs" />
        <Button size="sm" disabled={!text.trim()} onClick={onImport}>
          Import into editor
        </Button>
      </div>
      {result ? (
        result.ok ? (
          <div className="space-y-2">
            <p role="status" className="text-xs text-emerald-700">
              Imported a {FORM_LABELS[result.form]}.
            </p>
            <LossList issues={result.issues} title="Read with these notes:" />
          </div>
        ) : (
          <div>
            <p role="alert" className="text-xs font-semibold text-rose-700">
              Not imported{result.form ? ` (read as a ${FORM_LABELS[result.form]})` : ""}:
            </p>
            <ul className="mt-1 space-y-1">
              {result.issues.map((i, k) => (
                <li key={k} className="text-xs text-rose-700">
                  <code className="font-mono">{pathLabel(i.path)}</code>: {i.message}
                </li>
              ))}
            </ul>
          </div>
        )
      ) : null}
    </div>
  );
}
