"use client";

import { useState } from "react";
import { renameClusterAction } from "@/lib/actions/clusters";
import { Button } from "@/components/ui/Button";
import { Field, inputClass } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";

/** Gives a cluster a name of the analyst's; an empty name goes back to the one made from its signature. */
export function RenameClusterForm({ clusterId, label }: { clusterId: string; label: string | null }) {
  const [value, setValue] = useState(label ?? "");
  const form = useActionForm();
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        form.run(() => renameClusterAction({ clusterId, label: value }));
      }}
    >
      <Field label="Name" errors={form.fieldErrors("label")} className="min-w-[16rem] flex-1">
        <input
          className={inputClass}
          value={value}
          maxLength={200}
          placeholder="Named after its signature"
          onChange={(e) => setValue(e.target.value)}
        />
      </Field>
      <Button type="submit" disabled={form.pending}>
        {form.pending ? "Saving…" : "Save name"}
      </Button>
      {form.formError ? (
        <p role="alert" className="w-full text-sm text-rose-700">
          {form.formError}
        </p>
      ) : null}
    </form>
  );
}
