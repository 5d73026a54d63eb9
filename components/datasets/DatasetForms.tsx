"use client";

import Link from "next/link";
import { useState } from "react";
import { addDatasetMembersAction, createDatasetAction } from "@/lib/actions/datasets";
import { Button } from "@/components/ui/Button";
import { Field, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";
import { plural } from "@/lib/format";

/** A saved dataset as the "Add to dataset" picker lists it. */
export type DatasetOption = { id: string; name: string; size: number };

/** What happened, with the way to the dataset. */
export type DatasetOutcome = { datasetId: string; name: string; text: string; warning?: string };

export function DatasetOutcomeNotice({ outcome }: { outcome: DatasetOutcome }) {
  return (
    <Notice tone={outcome.warning ? "warning" : "success"} small testId="dataset-outcome">
      {outcome.text}
      {outcome.warning ? ` ${outcome.warning}` : ""}{" "}
      <Link href={`/datasets/${outcome.datasetId}`} className="font-medium underline">
        Open {outcome.name}
      </Link>
    </Notice>
  );
}

/** Name and describe a new dataset holding the chosen sessions, or the sessions a filter matches now. */
export function SaveDatasetForm({
  source,
  onDone,
  onCancel,
}: {
  source: { sessionIds: string[] } | { filter: Record<string, string> };
  onDone: (outcome: DatasetOutcome) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const { pending, run, fieldErrors, formError, error } = useActionForm();
  function submit(e: React.FormEvent) {
    e.preventDefault();
    run(
      () => createDatasetAction({ name, ...(description.trim() ? { description } : {}), ...source }),
      (created) =>
        onDone({
          datasetId: created.dataset.id,
          name: created.dataset.name,
          text: `Saved dataset "${created.dataset.name}" with ${plural(created.added, "session")}.`,
          ...("message" in created && created.message ? { warning: created.message } : {}),
        }),
    );
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label="Save as dataset">
      <Field label="Dataset name" errors={fieldErrors("name")} className="min-w-48 flex-1">
        <input value={name} onChange={(e) => setName(e.target.value)} className={inputClass} required maxLength={200} />
      </Field>
      <Field label="Description (optional)" errors={fieldErrors("description")} className="min-w-48 flex-[2]">
        <input
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          className={inputClass}
          maxLength={2000}
        />
      </Field>
      <Button type="submit" size="md" disabled={pending || !name.trim()}>
        {pending ? "Saving…" : "Save dataset"}
      </Button>
      <Button type="button" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
      {formError || (error && !fieldErrors("name") && !fieldErrors("description")) ? (
        <Notice tone="error" small className="w-full">
          {error?.message}
          {error?.issues.length ? ` ${error.issues.map((i) => i.message).join(" ")}` : ""}
        </Notice>
      ) : null}
    </form>
  );
}

/** Add the chosen sessions to a saved dataset; those already in it stay as they were. */
export function AddToDatasetForm({
  sessionIds,
  datasets,
  onDone,
  onCancel,
}: {
  sessionIds: string[];
  datasets: readonly DatasetOption[];
  onDone: (outcome: DatasetOutcome) => void;
  onCancel: () => void;
}) {
  const [datasetId, setDatasetId] = useState(datasets[0]?.id ?? "");
  const { pending, run, error } = useActionForm();
  if (datasets.length === 0)
    return (
      <p className="text-sm text-slate-700">
        No dataset yet: save these sessions as one first.{" "}
        <Button variant="link" size="inline" onClick={onCancel}>
          Back
        </Button>
      </p>
    );
  function submit(e: React.FormEvent) {
    e.preventDefault();
    const chosen = datasets.find((d) => d.id === datasetId);
    run(
      () => addDatasetMembersAction({ datasetId, sessionIds }),
      (r) =>
        onDone({
          datasetId,
          name: chosen?.name ?? "the dataset",
          text: `Added ${plural(r.added, "session")} to "${chosen?.name}"${r.alreadyIn ? ` (${r.alreadyIn} already in it)` : ""}; it holds ${plural(r.size, "session")}.`,
        }),
    );
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label="Add to dataset">
      <Field label="Dataset" className="min-w-48 flex-1">
        <select value={datasetId} onChange={(e) => setDatasetId(e.target.value)} className={inputClass}>
          {datasets.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name} · {plural(d.size, "session")}
            </option>
          ))}
        </select>
      </Field>
      <Button type="submit" disabled={pending || !datasetId}>
        {pending ? "Adding…" : "Add"}
      </Button>
      <Button type="button" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
      {error ? (
        <Notice tone="error" small className="w-full">
          {error.message}
        </Notice>
      ) : null}
    </form>
  );
}
