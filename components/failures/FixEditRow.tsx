"use client";

import type { EditFields } from "@/components/experiments/CohortEditFields";
import { Button } from "@/components/ui/Button";
import { TextAreaField, TextField, inputClass } from "@/components/ui/Field";

/** A row's field, as the body names it: `edits[2].tool` (the row itself: `edits[2]`). */
export const editPath = (index: number, field?: "tool" | "args" | "value") =>
  `edits[${index}]${field ? `.${field}` : ""}`;

/**
 * One edit of a fix: a tool, the argument values its calls must have (optional) and the result they return, with
 * the errors of each field and of the row (two edits setting one call differently) beside them.
 */
export function FixEditRow({
  index,
  edit,
  onChange,
  onRemove,
  errors,
}: {
  index: number;
  edit: EditFields;
  onChange: (next: EditFields) => void;
  onRemove: () => void;
  /** The errors of a field of this row (none: the row itself). */
  errors: (field?: "tool" | "args" | "value") => string[] | undefined;
}) {
  const rowErrors = errors();
  // One of the edit's fields: its name in the body, its value, its errors, and the edit with it changed.
  const field = (key: "tool" | "args" | "value") => ({
    name: editPath(index, key),
    value: edit[key],
    errors: errors(key),
    onValue: (value: string) => onChange({ ...edit, [key]: value }),
  });
  return (
    <li className="rounded-md border border-slate-200 p-2" data-testid="fix-edit-row" aria-label={`Edit ${index + 1}`}>
      <div className="grid grid-cols-2 gap-2">
        <TextField label="Tool" placeholder="refund_payment" {...field("tool")} />
        <TextField
          label="Only calls with these arguments (JSON, optional)"
          placeholder='{"order_id": "4821"}'
          inputClassName={`${inputClass} font-mono`}
          {...field("args")}
        />
      </div>
      <TextAreaField
        className="mt-2"
        label="Returns (JSON)"
        rows={2}
        placeholder='{"refunded": false, "reason": "the order was returned"}'
        inputClassName={`${inputClass} font-mono`}
        {...field("value")}
      />
      <div className="mt-1 flex items-center justify-between gap-2">
        {rowErrors?.length ? (
          <p role="alert" className="text-xs text-rose-700">
            {rowErrors.join(" ")}
          </p>
        ) : (
          <span />
        )}
        <Button variant="dangerGhost" size="xs" onClick={onRemove}>
          Remove edit {index + 1}
        </Button>
      </div>
    </li>
  );
}
