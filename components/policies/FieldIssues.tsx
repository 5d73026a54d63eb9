import type { PolicyIssue } from "@/lib/replay";

/** Errors and warnings shown beside the field they concern. Warnings quote the rule's own caveat. */
export function FieldIssues({ issues, testId }: { issues: readonly PolicyIssue[]; testId?: string }) {
  if (issues.length === 0) return null;
  return (
    <div className="mt-1 space-y-1" data-testid={testId}>
      {issues.map((i, k) => (
        <div
          key={`${i.code}-${k}`}
          role={i.severity === "error" ? "alert" : "note"}
          data-severity={i.severity}
          data-code={i.code}
          className={`rounded px-2 py-1 text-xs leading-snug ${
            i.severity === "error"
              ? "bg-rose-50 text-rose-800 ring-1 ring-rose-200"
              : "bg-amber-50 text-amber-900 ring-1 ring-amber-200"
          }`}
        >
          <span className="font-semibold">{i.severity === "error" ? "Error" : "Warning"}:</span> {i.message}
        </div>
      ))}
    </div>
  );
}
