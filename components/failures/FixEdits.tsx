"use client";

import { editInput, NO_EDIT, type EditFields } from "@/components/experiments/CohortEditFields";
import { Button } from "@/components/ui/Button";
import { editPath, FixEditRow } from "./FixEditRow";

/** Most edits a fix takes. */
const MAX_EDITS = 12;

/** An edit as the body sends it. */
type EditBody = { tool: string; args?: Record<string, unknown>; value: unknown };

/**
 * The rows to send as `edits` (blank rows left out), or the errors of the rows' fields by their paths when a row
 * names no tool or its JSON does not parse.
 */
export function editRowsInput(rows: readonly EditFields[]): { edits: EditBody[] } | { errors: Record<string, string> } {
  const edits: EditBody[] = [];
  const errors: Record<string, string> = {};
  for (const [i, row] of rows.entries()) {
    const parsed = editInput(row);
    if (parsed === null) {
      if (row.args.trim() !== "" || row.value.trim() !== "")
        errors[editPath(i, "tool")] = "Name the tool whose calls are edited, or remove the edit.";
    } else if ("field" in parsed)
      errors[editPath(i, parsed.field.endsWith("args") ? "args" : "value")] = parsed.message;
    else edits.push(parsed.edit);
  }
  return Object.keys(errors).length > 0 ? { errors } : { edits };
}

/**
 * A fix's edits of tools' results: rows the analyst adds and removes, each with its own errors (`errorsOf` gives
 * those of a path such as `edits[1].value`).
 */
export function FixEdits({
  rows,
  onChange,
  errorsOf,
}: {
  rows: readonly EditFields[];
  onChange: (next: EditFields[]) => void;
  errorsOf: (path: string) => string[] | undefined;
}) {
  return (
    <fieldset className="space-y-2 rounded-md border border-slate-200 px-3 pt-1 pb-3 text-sm" data-testid="fix-edits">
      <legend className="px-1 font-medium text-slate-900">Edit tools&apos; results (optional)</legend>
      <p className="text-xs text-slate-500">
        Each edit makes every call of its tool (with these argument values, when given) return its result instead of the
        recorded one, on every session with such a call. Several edits may apply to one session; two may not set the
        same call differently.
      </p>
      {rows.length > 0 ? (
        <ol className="space-y-2">
          {rows.map((row, i) => (
            <FixEditRow
              key={i}
              index={i}
              edit={row}
              onChange={(next) => onChange(rows.map((r, j) => (j === i ? next : r)))}
              onRemove={() => onChange(rows.filter((_, j) => j !== i))}
              errors={(field) => errorsOf(editPath(i, field))}
            />
          ))}
        </ol>
      ) : null}
      {errorsOf("edits")?.map((m) => (
        <p key={m} role="alert" className="text-xs text-rose-700">
          {m}
        </p>
      ))}
      <Button
        variant="secondary"
        size="sm"
        disabled={rows.length >= MAX_EDITS}
        onClick={() => onChange([...rows, NO_EDIT])}
      >
        Add an edit
      </Button>
    </fieldset>
  );
}
