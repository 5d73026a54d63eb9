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
  return (
    <li className="rounded-md border border-slate-200 p-2" data-testid="fix-edit-row" aria-label={`Edit ${index + 1}`}>
      <div className="grid grid-cols-2 gap-2">
        <TextField
          label="Tool"
          errors={errors("tool")}
          value={edit.tool}
          placeholder="refund_payment"
          name={editPath(index, "tool")}
          onValue={(tool) => onChange({ ...edit, tool })}
        />
        <TextField
          label="Only calls with these arguments (JSON, optional)"
          errors={errors("args")}
          value={edit.args}
          placeholder='{"order_id": "4821"}'
          name={editPath(index, "args")}
          inputClassName={`${inputClass} font-mono`}
          onValue={(args) => onChange({ ...edit, args })}
        />
      </div>
      <TextAreaField
        className="mt-2"
        label="Returns (JSON)"
        errors={errors("value")}
        value={edit.value}
        rows={2}
        placeholder='{"refunded": false, "reason": "the order was returned"}'
        name={editPath(index, "value")}
        inputClassName={`${inputClass} font-mono`}
        onValue={(value) => onChange({ ...edit, value })}
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
