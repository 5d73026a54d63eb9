"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startInvestigationAction } from "@/lib/actions/investigations";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";

/** Start a stale check: call each read-only tool again with its recorded arguments and compare. */
export function StaleForm({ sessionId }: { sessionId: string }) {
  const router = useRouter();
  const form = useActionForm({ refresh: false });
  const [volatile, setVolatile] = useState("");
  const volatileErrors = Object.entries(form.error?.fields ?? {})
    .filter(([path]) => path.startsWith("volatile"))
    .flatMap(([path, messages]) => messages.map((m) => `${path}: ${m}`));

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const paths = volatile
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    form.run(
      () => startInvestigationAction({ kind: "stale", sessionId, volatile: paths }),
      (created) => router.push(`/investigations/${created.id}`),
    );
  }

  return (
    <Card title="Are the recordings still what the tools answer?">
      <form onSubmit={submit} className="space-y-4" aria-label="Check for stale recordings">
        <p className="text-sm text-slate-700">
          Calls each read-only tool that has a live endpoint again, with the arguments it was recorded with, and shows
          where today&apos;s answer differs. Tools not declared read-only are never called.
        </p>
        <Field
          label="Volatile paths (one per line)"
          hint="Differences here do not count, e.g. $.updated_at or items[*].price."
          errors={volatileErrors.length > 0 ? volatileErrors : undefined}
        >
          <textarea
            value={volatile}
            onChange={(e) => setVolatile(e.target.value)}
            rows={3}
            className={`${inputClass} font-mono`}
          />
        </Field>
        {form.error ? <Notice tone="error">{form.error.message}</Notice> : null}
        <Button type="submit" variant="secondary" disabled={form.pending}>
          {form.pending ? "Starting…" : "Check the recordings"}
        </Button>
      </form>
    </Card>
  );
}
