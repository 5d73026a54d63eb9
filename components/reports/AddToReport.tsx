"use client";

import Link from "next/link";
import { useId, useState } from "react";
import { addReportEvidenceAction } from "@/lib/actions/reports";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";

export type EvidenceSource =
  { investigationId: string } | { coverage: { replayId: string } | { experimentId: string } };

/**
 * "Add to report": puts an investigation's result or a policy's coverage into one of the analyst's draft reports
 * as evidence (frozen there with its policy and hash): drafts about its session only. Without one it says how to
 * get one.
 */
export function AddToReport({
  source,
  drafts,
  what,
  about = "the same session",
}: {
  source: EvidenceSource;
  drafts: readonly { id: string; title: string }[];
  /** What is added, in a few words ("this blame search", "this coverage"). */
  what: string;
  /** The session a draft must be about to take it, in a few words. */
  about?: string;
}) {
  const selectId = useId();
  const [reportId, setReportId] = useState(drafts[0]?.id ?? "");
  const [added, setAdded] = useState<{ reportId: string; title: string } | null>(null);
  const form = useActionForm();
  if (drafts.length === 0)
    return (
      <p className="text-sm text-slate-600" data-testid="add-to-report">
        To add {what} to a report, first write a draft about {about}: open a finished comparison of it and choose
        “Create report”.
      </p>
    );
  return (
    <form
      aria-label="Add to report"
      data-testid="add-to-report"
      className="flex flex-wrap items-center gap-2 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        const title = drafts.find((d) => d.id === reportId)?.title ?? reportId;
        form.run(
          () => addReportEvidenceAction({ reportId, ...source }),
          () => setAdded({ reportId, title }),
        );
      }}
    >
      <label htmlFor={selectId} className="text-slate-700">
        Add {what} to the draft
      </label>
      <select
        id={selectId}
        value={reportId}
        onChange={(e) => {
          setReportId(e.target.value);
          setAdded(null);
          form.reset();
        }}
        className="max-w-xs rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900"
      >
        {drafts.map((d) => (
          <option key={d.id} value={d.id}>
            {d.title}
          </option>
        ))}
      </select>
      <Button type="submit" variant="secondary" disabled={form.pending || !reportId}>
        {form.pending ? "Adding…" : "Add to report"}
      </Button>
      {added ? (
        <span role="status" className="text-emerald-700">
          Added to{" "}
          <Link href={`/reports/${added.reportId}`} className="font-medium underline">
            {added.title}
          </Link>
          .
        </span>
      ) : null}
      {form.error ? (
        <span role="alert" className="text-rose-700">
          {form.error.message}
        </span>
      ) : null}
    </form>
  );
}
