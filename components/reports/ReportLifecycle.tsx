"use client";

import { useRouter } from "next/navigation";
import { ButtonLink } from "@/components/ui/Button";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { useActionForm } from "@/components/ui/useActionForm";
import type { ActionResult } from "@/lib/http/action";
import { ActionError } from "./ActionError";

type Ref = { reportId: string };

/**
 * A report's draft/published state and what can be done in it: a draft can be
 * edited, published (once it has a Finding) and deleted; a published report
 * only deleted. Publishing and deleting ask first (neither can be undone), and say what goes with them.
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
  const { pending, error, run } = useActionForm({ refresh: false });
  const onPublish = () =>
    run(
      () => publish({ reportId }),
      () => router.refresh(),
    );
  const onDelete = () =>
    run(
      () => remove({ reportId }),
      () => router.push("/reports"),
    );

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
            <ButtonLink variant="secondary" href={`/reports/${encodeURIComponent(reportId)}/edit`}>
              Edit draft
            </ButtonLink>
            <ConfirmButton
              tone="primary"
              question="Publish this report?"
              details="A published report is frozen: it can no longer be edited, only shared by link or deleted. This cannot be undone."
              confirmLabel="Publish report"
              pendingLabel="Publishing…"
              onConfirm={onPublish}
              pending={pending}
              disabled={!hasFinding}
            >
              Publish…
            </ConfirmButton>
          </>
        ) : null}
        <ConfirmButton
          question="Delete this report?"
          details={
            <>
              {status === "published"
                ? `It is published: ${activeShares === 0 ? "no share link is active, but" : `its ${activeShares} active share link${activeShares === 1 ? "" : "s"} will stop working, and`} anyone who had it open loses it. This cannot be undone.`
                : "The draft and everything written in it are removed. This cannot be undone."}{" "}
              The replay itself is kept.
            </>
          }
          confirmLabel="Delete report"
          pendingLabel="Deleting…"
          onConfirm={onDelete}
          pending={pending}
        >
          Delete…
        </ConfirmButton>
      </div>
      <ActionError error={error} />
    </section>
  );
}
