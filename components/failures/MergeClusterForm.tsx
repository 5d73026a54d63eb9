"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { mergeClustersAction } from "@/lib/actions/clusters";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { Field, inputClass } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";
import { plural } from "@/lib/format";

type Choice = { id: string; label: string; size: number };

/** Merges this cluster into another of its agent's: its sessions move there, and so do new ones of its signature. */
export function MergeClusterForm({ cluster, others }: { cluster: Choice; others: Choice[] }) {
  const router = useRouter();
  const [targetId, setTargetId] = useState("");
  const form = useActionForm({ refresh: false });
  const target = others.find((o) => o.id === targetId);
  if (others.length === 0)
    return <p className="text-sm text-slate-600">This agent has no other cluster to merge this one into.</p>;
  return (
    <div className="flex flex-wrap items-end gap-2">
      <Field label="Merge into" errors={form.fieldErrors("targetId")} className="min-w-[16rem] flex-1">
        <select
          className={inputClass}
          value={targetId}
          onChange={(e) => {
            setTargetId(e.target.value);
            form.reset();
          }}
        >
          <option value="">Choose a cluster…</option>
          {others.map((o) => (
            <option key={o.id} value={o.id}>
              {o.label} ({plural(o.size, "session")})
            </option>
          ))}
        </select>
      </Field>
      <ConfirmButton
        key={targetId}
        tone="primary"
        disabled={!target}
        question={target ? `Merge into “${target.label}”?` : "Merge?"}
        details={
          target
            ? `Its ${plural(cluster.size, "session")} join the ${target.size} there (${cluster.size + target.size} in all), and new sessions with this signature land there too. This cluster goes away.`
            : undefined
        }
        confirmLabel="Merge"
        pendingLabel="Merging…"
        pending={form.pending}
        onConfirm={() =>
          form.run(
            () => mergeClustersAction({ targetId, sourceIds: [cluster.id] }),
            (merged) => router.push(`/failures/${merged.id}`),
          )
        }
      >
        Merge…
      </ConfirmButton>
      {form.error ? (
        <p role="alert" className="w-full text-sm text-rose-700">
          {form.error.message}
          {form.error.issues.length > 0 ? ` (${form.error.issues.map((i) => i.message).join("; ")})` : ""}
        </p>
      ) : null}
    </div>
  );
}
