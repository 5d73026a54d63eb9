"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { DeleteAndLeave } from "@/components/ui/DeleteAndLeave";
import { Field, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";
import { deleteDatasetAction, updateDatasetAction } from "@/lib/actions/datasets";

/** Rename or describe the dataset, or delete it (asked first; experiments run over it keep their sessions). */
export function DatasetActions({ id, name, description }: { id: string; name: string; description: string }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({ name, description });
  const edit = useActionForm();
  return (
    <>
      <Button variant="secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
        Rename…
      </Button>
      <DeleteAndLeave
        question={`Delete dataset "${name}"?`}
        details="The sessions themselves stay, and experiments run over it keep their sessions and its name."
        confirmLabel="Delete dataset"
        action={() => deleteDatasetAction({ datasetId: id })}
        to="/datasets"
        showError={(error) => <Notice tone="error">{error.message}</Notice>}
      />
      {editing ? (
        <form
          className="flex w-full flex-wrap items-end gap-2"
          aria-label="Rename dataset"
          onSubmit={edit.onSubmit(
            () => updateDatasetAction({ datasetId: id, name: draft.name, description: draft.description }),
            () => setEditing(false),
          )}
        >
          <Field label="Name" errors={edit.fieldErrors("name")} className="min-w-48 flex-1">
            <input
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
              className={inputClass}
              required
              maxLength={200}
            />
          </Field>
          <Field label="Description" errors={edit.fieldErrors("description")} className="min-w-48 flex-[2]">
            <input
              value={draft.description}
              onChange={(e) => setDraft({ ...draft, description: e.target.value })}
              className={inputClass}
              maxLength={2000}
            />
          </Field>
          <Button type="submit" disabled={edit.pending || !draft.name.trim()}>
            {edit.pending ? "Saving…" : "Save"}
          </Button>
          {edit.formError ? <Notice tone="error">{edit.formError}</Notice> : null}
        </form>
      ) : null}
    </>
  );
}
