"use client";

import type { EditOp } from "@/lib/replay";
import { JsonEditor } from "@/components/ui/monaco";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EDIT_OPS, targetsFor, type EditTarget } from "./edit-values";
import type { EditDraft } from "./useEditDrafts";

/** The "Edits (counterfactuals)" part of the start form: one row an edit, its operation, its step and its value. */
export function EditList({
  edits,
  targets,
  onAdd,
  onUpdate,
  onRemove,
}: {
  edits: readonly EditDraft[];
  targets: readonly EditTarget[];
  onAdd: () => void;
  onUpdate: (key: number, patch: Partial<EditDraft>) => void;
  onRemove: (key: number) => void;
}) {
  return (
    <Card padding="lg">
      <div className="flex items-center justify-between">
        <h2 className="text-base font-semibold text-slate-900">Edits (counterfactuals)</h2>
        <Button variant="secondary" onClick={onAdd} disabled={targets.length === 0}>
          Add an edit
        </Button>
      </div>
      {edits.length === 0 ? (
        <p className="mt-2 text-sm text-slate-500">
          No edits: the branch replays the base run as recorded. Add one to change a tool result, tool arguments, a
          model output or the system prompt at a step.
        </p>
      ) : null}
      <ol className="mt-3 space-y-4">
        {edits.map((draft, index) => (
          <EditRow
            key={draft.key}
            draft={draft}
            index={index}
            targets={targets}
            onUpdate={(patch) => onUpdate(draft.key, patch)}
            onRemove={() => onRemove(draft.key)}
          />
        ))}
      </ol>
    </Card>
  );
}

function EditRow({
  draft,
  index,
  targets,
  onUpdate,
  onRemove,
}: {
  draft: EditDraft;
  index: number;
  targets: readonly EditTarget[];
  onUpdate: (patch: Partial<EditDraft>) => void;
  onRemove: () => void;
}) {
  return (
    <li className="rounded-md border border-slate-200 p-3" data-testid="edit-draft">
      <div className="mb-2 flex flex-wrap items-end gap-3 text-sm">
        <label>
          <span className="block text-xs text-slate-500">Edit {index + 1}</span>
          <select
            aria-label={`Edit ${index + 1} operation`}
            value={draft.op}
            onChange={(e) => onUpdate({ op: e.target.value as EditOp })}
            className="rounded-md border border-slate-300 bg-white px-2 py-1"
          >
            {EDIT_OPS.map((o) => (
              <option key={o.op} value={o.op}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="block text-xs text-slate-500">at step</span>
          <select
            aria-label={`Edit ${index + 1} step`}
            value={draft.seq ?? ""}
            onChange={(e) => onUpdate({ seq: Number(e.target.value) })}
            className="rounded-md border border-slate-300 bg-white px-2 py-1"
          >
            {targetsFor(draft.op, targets).map((t) => (
              <option key={t.seq} value={t.seq}>
                {t.seq} · {t.name}
              </option>
            ))}
          </select>
        </label>
        <Button variant="dangerLink" size="inline" className="ml-auto text-sm" onClick={onRemove}>
          Remove
        </Button>
      </div>
      <JsonEditor
        key={`${draft.key}-${draft.op}-${draft.seq}`}
        value={draft.text}
        onChange={(text) => onUpdate({ text })}
        height={160}
        path={`edit-${draft.key}.json`}
        ariaLabel={`Edit ${index + 1} value`}
      />
    </li>
  );
}
