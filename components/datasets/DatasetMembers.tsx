"use client";

import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { CardTable } from "@/components/ui/DataTable";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";
import { OutcomeBadge } from "@/components/sessions/OutcomeBadge";
import { removeDatasetMembersAction } from "@/lib/actions/datasets";
import type { DatasetMemberView } from "@/lib/server/datasets/datasets";
import { formatDateTime } from "@/lib/format";

const WIDE = "hidden sm:table-cell";

/** A page of a dataset's members: the session, its agent, status and outcome, who added it and when; remove one. */
export function DatasetMembers({
  datasetId,
  members,
  canRemove,
}: {
  datasetId: string;
  members: readonly DatasetMemberView[];
  canRemove: boolean;
}) {
  const { pending, run, error } = useActionForm();
  return (
    <>
      {error ? <Notice tone="error">{error.message}</Notice> : null}
      <CardTable
        label="Sessions in this dataset"
        columns={[
          "Session",
          { label: "Agent", className: WIDE },
          { label: "Status", className: WIDE },
          { label: "Added", className: WIDE },
          ...(canRemove ? [{ label: "Remove", srOnly: true }] : []),
        ]}
      >
        {members.map((m) => (
          <tr key={m.sessionId} className="border-t border-slate-100 align-top" data-testid="dataset-member">
            <td className="px-3 py-2">
              <Link
                href={`/sessions/${m.sessionId}`}
                className="font-medium break-words text-indigo-700 hover:underline"
              >
                {m.label}
              </Link>
              <div className="text-xs text-slate-600">
                {m.steps} steps{m.startedAt ? ` · ran ${formatDateTime(m.startedAt)}` : ""}
              </div>
              <div className="text-xs text-slate-600 sm:hidden">
                {m.agentName} {m.agentVersion} · added by {m.addedBy}
              </div>
            </td>
            <td className={`px-3 py-2 ${WIDE}`}>
              {m.agentName} <Badge>{m.agentVersion}</Badge>
            </td>
            <td className={`px-3 py-2 ${WIDE}`}>
              <span className="inline-flex flex-wrap gap-1">
                <StatusBadge status={m.status} /> <OutcomeBadge outcome={m.outcome} reason={null} />
              </span>
            </td>
            <td className={`px-3 py-2 text-xs text-slate-600 ${WIDE}`}>
              {m.addedBy}
              <span className="block whitespace-nowrap">{formatDateTime(m.addedAt)}</span>
            </td>
            {canRemove ? (
              <td className="px-3 py-2 text-right">
                <Button
                  variant="dangerGhost"
                  size="xs"
                  disabled={pending}
                  aria-label={`Remove ${m.label} from the dataset`}
                  onClick={() => run(() => removeDatasetMembersAction({ datasetId, sessionIds: [m.sessionId] }))}
                >
                  Remove
                </Button>
              </td>
            ) : null}
          </tr>
        ))}
      </CardTable>
    </>
  );
}
