"use client";

import { useRouter } from "next/navigation";
import { createReviewQueueAction } from "@/lib/actions/reviews";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, inputClass } from "@/components/ui/Field";
import { FormError } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/** Makes a review queue: its name, what reviewers should look for, the labels they pick from and whether they score. */
export function NewReviewQueueForm() {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  const text = (data: FormData, name: string) => {
    const v = data.get(name);
    return typeof v === "string" ? v : "";
  };
  return (
    <Card title="New review queue" className="mb-6">
      <form
        className="grid gap-3 sm:grid-cols-2"
        aria-label="New review queue"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const labels = text(data, "labels")
            .split(",")
            .map((l) => l.trim())
            .filter(Boolean);
          form.run(
            () =>
              createReviewQueueAction({
                name: text(data, "name"),
                description: text(data, "description"),
                labels,
                askScore: data.get("askScore") === "on",
              }),
            (queue) => router.push(`/reviews/${queue.id}`),
          );
        }}
      >
        <Field label="Name" errors={form.fieldErrors("name")}>
          <input name="name" required maxLength={100} className={inputClass} placeholder="e.g. Refund triage" />
        </Field>
        <Field
          label="Labels to choose from"
          hint="Separated by commas; empty: any label."
          errors={Object.entries(form.error?.fields ?? {})
            .filter(([path]) => path.startsWith("labels"))
            .flatMap(([, messages]) => messages)}
        >
          <input name="labels" className={inputClass} placeholder="e.g. correct, wrong refund, unclear" />
        </Field>
        <Field label="What to look for" className="sm:col-span-2" errors={form.fieldErrors("description")}>
          <textarea name="description" rows={2} maxLength={2000} className={inputClass} />
        </Field>
        <label className="flex items-center gap-2 text-sm text-slate-700 sm:col-span-2">
          <input type="checkbox" name="askScore" className="h-4 w-4" /> Ask reviewers for a score
        </label>
        <div className="sm:col-span-2">
          <Button type="submit" disabled={form.pending}>
            {form.pending ? "Creating…" : "Create queue"}
          </Button>
          <FormError error={form.error} />
        </div>
      </form>
    </Card>
  );
}
