import type { ReactNode } from "react";

const INPUT = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-1.5 text-sm";

/** The edit across the cohort as typed: JSON texts, parsed on submit. */
export type EditFields = { tool: string; args: string; value: string };

/** The edit to send, or the field whose JSON does not parse (null: no edit, the tool is empty). */
export function editInput(
  f: EditFields,
):
  | { edit: { tool: string; args?: Record<string, unknown>; value: unknown } }
  | { field: string; message: string }
  | null {
  if (f.tool.trim() === "") return null;
  let args: unknown;
  if (f.args.trim() !== "") {
    try {
      args = JSON.parse(f.args);
    } catch {
      return {
        field: "edit.args",
        message: 'Not JSON: give an object such as {"order_id": "4821"}, or leave it empty.',
      };
    }
    if (args === null || typeof args !== "object" || Array.isArray(args))
      return { field: "edit.args", message: "Give an object of argument names and values, or leave it empty." };
  }
  let value: unknown;
  try {
    value = JSON.parse(f.value);
  } catch {
    return { field: "edit.value", message: "Not JSON: give the result as JSON (a quoted string for text)." };
  }
  return { edit: { tool: f.tool.trim(), ...(args ? { args: args as Record<string, unknown> } : {}), value } };
}

export const NO_EDIT: EditFields = { tool: "", args: "", value: "" };

/** The new-experiment form's edit across the cohort: a tool, optional argument values, and the result (JSON). */
export function CohortEditFields({
  edit,
  onChange,
  fieldError,
  legend = "Edit across the cohort (optional)",
}: {
  edit: EditFields;
  onChange: (next: EditFields) => void;
  fieldError: (field: string) => ReactNode;
  /** What the fieldset is called where the cohort has another name (a cluster's sessions). */
  legend?: string;
}) {
  return (
    <fieldset className="space-y-3 rounded-md border border-slate-200 px-3 pt-1 pb-3 text-sm">
      <legend className="px-1 font-medium text-slate-900">{legend}</legend>
      <p className="text-xs text-slate-500">
        The same edit on every session where it applies: each call of the tool (with these argument values, when given)
        returns this result instead of the recorded one. Sessions without such a call are replayed without it, and the
        results name them.
      </p>
      <label className="block">
        <span className="text-slate-900">Tool</span>
        <input
          value={edit.tool}
          onChange={(e) => onChange({ ...edit, tool: e.target.value })}
          placeholder="lookup_order"
          className={INPUT}
        />
        {fieldError("edit.tool")}
      </label>
      <label className="block">
        <span className="text-slate-900">Only calls with these arguments (JSON object, optional)</span>
        <input
          value={edit.args}
          onChange={(e) => onChange({ ...edit, args: e.target.value })}
          placeholder='{"order_id": "4821"}'
          className={`${INPUT} font-mono`}
        />
        {fieldError("edit.args")}
      </label>
      <label className="block">
        <span className="text-slate-900">Returns (JSON)</span>
        <textarea
          value={edit.value}
          onChange={(e) => onChange({ ...edit, value: e.target.value })}
          rows={3}
          placeholder='{"status": "lost_in_transit"}'
          className={`${INPUT} font-mono`}
        />
        {fieldError("edit.value")}
      </label>
      {fieldError("edit")}
    </fieldset>
  );
}
