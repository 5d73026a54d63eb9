"use client";

import { useState, type InputHTMLAttributes } from "react";
import { renameClusterAction } from "@/lib/actions/clusters";
import { Button } from "@/components/ui/Button";
import { Field, inputClass } from "@/components/ui/Field";
import { ErrorLine } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/**
 * The input of a cluster's name of the analyst's (blank: it is named after its signature), for a `Field` (which
 * passes it its id and error wiring).
 */
export function ClusterNameInput({
  onValue,
  ...input
}: { value: string; onValue: (value: string) => void } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <input
      {...input}
      className={inputClass}
      maxLength={200}
      placeholder="Named after its signature"
      onChange={(e) => onValue(e.target.value)}
    />
  );
}

/** Gives a cluster a name of the analyst's; an empty name goes back to the one made from its signature. */
export function RenameClusterForm({ clusterId, label }: { clusterId: string; label: string | null }) {
  const [value, setValue] = useState(label ?? "");
  const form = useActionForm();
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={form.onSubmit(() => renameClusterAction({ clusterId, label: value }))}
    >
      <Field label="Name" errors={form.fieldErrors("label")} className="min-w-[16rem] flex-1">
        <ClusterNameInput value={value} onValue={setValue} />
      </Field>
      <Button type="submit" disabled={form.pending}>
        {form.pending ? "Saving…" : "Save name"}
      </Button>
      <ErrorLine message={form.formError} className="w-full" />
    </form>
  );
}
