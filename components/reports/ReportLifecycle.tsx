"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/http/action";

type Ref = { reportId: string };

/**
 * A report's draft/published state and what can be done in it: a draft can be
 * edited, published (once it has a Finding) and deleted; a published report
 * only deleted. Deleting asks first, and says what else goes with it.
 */
export function ReportLifecycle({
  reportId,
  status,
  hasFinding,
  activeShares,
  publish,
  remove,
}: {
  reportId: string;
  status: "draft" | "published";
  hasFinding: boolean;
  activeShares: number;
  publish: (input: Ref) => Promise<ActionResult<{ id: string; status: string }>>;
  remove: (input: Ref) => Promise<ActionResult<{ id: string; status: string }>>;
}) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  const onPublish = () =>
    startTransition(async () => {
      setError(null);
      const result = await publish({ reportId });
      if (!result.ok) return setError(result.error.message);
      router.refresh();
    });

  const onDelete = () =>
    startTransition(async () => {
      setError(null);
      const result = await remove({ reportId });
      if (!result.ok) return setError(result.error.message);
      router.push("/reports");
    });

  return (
    <section
      aria-labelledby="report-state-heading"
      className={`rounded-lg border p-4 ${status === "draft" ? "border-amber-300 bg-amber-50" : "border-slate-200 bg-white"}`}
    >
      <h2 id="report-state-heading" className="text-sm font-semibold text-slate-900">
        {status === "draft" ? "Draft" : "Published"}
      </h2>
      <p className="mt-1 text-xs text-slate-700">
        {status === "draft"
          ? "A draft can be edited and deleted. When it says what you found, publish it: a published report never changes and can be shared by link."
          : "This report is frozen: it no longer changes, whatever happens to the replay, policy or session."}
      </p>
      {status === "draft" && !hasFinding ? (
        <p className="mt-2 text-xs text-amber-900">Write the Finding before publishing.</p>
      ) : null}
      <div className="mt-3 flex flex-wrap gap-2">
        {status === "draft" ? (
          <>
            <Link
              href={`/reports/${encodeURIComponent(reportId)}/edit`}
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              Edit draft
            </Link>
            <button
              type="button"
              onClick={onPublish}
              disabled={pending || !hasFinding}
              className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 disabled:opacity-50"
            >
              Publish
            </button>
          </>
        ) : null}
        {confirming ? null : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            disabled={pending}
            className="rounded-md border border-rose-300 bg-white px-3 py-1.5 text-sm font-medium text-rose-700 hover:bg-rose-50 disabled:opacity-50"
          >
            Delete…
          </button>
        )}
      </div>
      {confirming ? (
        <div
          role="alertdialog"
          aria-labelledby="delete-report-title"
          aria-describedby="delete-report-text"
          className="mt-3 rounded-md border border-rose-300 bg-white p-3"
        >
          <p id="delete-report-title" className="text-sm font-semibold text-rose-800">
            Delete this report?
          </p>
          <p id="delete-report-text" className="mt-1 text-xs text-slate-700">
            {status === "published"
              ? `It is published: ${activeShares === 0 ? "no share link is active, but" : `its ${activeShares} active share link${activeShares === 1 ? "" : "s"} will stop working, and`} anyone who had it open loses it. This cannot be undone.`
              : "The draft and everything written in it are removed. This cannot be undone."}{" "}
            The replay itself is kept.
          </p>
          <div className="mt-2 flex gap-2">
            <button
              type="button"
              onClick={onDelete}
              disabled={pending}
              className="rounded-md bg-rose-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-rose-500 disabled:opacity-50"
            >
              {pending ? "Deleting…" : "Delete report"}
            </button>
            <button
              type="button"
              onClick={() => setConfirming(false)}
              disabled={pending}
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {error}
        </p>
      ) : null}
    </section>
  );
}
