"use client";

import Link from "next/link";
import { useState } from "react";
import { splitClusterAction } from "@/lib/actions/clusters";
import { OutcomeBadge } from "@/components/sessions/OutcomeBadge";
import { StatusBadge } from "@/components/ui/Badge";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { DataTable } from "@/components/ui/DataTable";
import { Field } from "@/components/ui/Field";
import { ErrorLine } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";
import { formatDateTime, plural } from "@/lib/format";
import { ClusterNameInput } from "./RenameClusterForm";

export type ClusterMemberRow = {
  id: string;
  title: string | null;
  externalId: string | null;
  status: string;
  outcome: string | null;
  outcomeReason: string | null;
  version: string;
  seenAt: string;
};

/**
 * The cluster's most recently seen sessions; to an analyst, each with a box to choose it, and a form that splits
 * the chosen ones off into a new cluster (they stay there while their signature does).
 */
export function ClusterMembers({
  clusterId,
  size,
  sessions,
  canSplit,
}: {
  clusterId: string;
  size: number;
  sessions: ClusterMemberRow[];
  canSplit: boolean;
}) {
  // A cluster of one session cannot be split: splitting off its only session would leave it empty.
  const splittable = canSplit && size > 1;
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [name, setName] = useState("");
  const [done, setDone] = useState<{ id: string; label: string; size: number } | null>(null);
  const [round, setRound] = useState(0);
  const form = useActionForm();
  const toggle = (id: string) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const columns = ["Session", "Version", "Status and outcome", "Seen"];
  return (
    <>
      <DataTable
        frame={false}
        label="Example sessions"
        columns={splittable ? [{ label: "Choose to split off", srOnly: true, className: "w-8" }, ...columns] : columns}
      >
        {sessions.map((s) => {
          const shown = s.title ?? s.externalId ?? s.id;
          return (
            <tr key={s.id} data-testid="cluster-session">
              {splittable ? (
                <td className="py-2 pl-3">
                  <input
                    type="checkbox"
                    aria-label={`Choose ${shown}`}
                    checked={chosen.has(s.id)}
                    onChange={() => toggle(s.id)}
                  />
                </td>
              ) : null}
              <td className="px-3 py-2">
                <Link href={`/sessions/${s.id}`} className="text-indigo-700 hover:underline">
                  {shown}
                </Link>
              </td>
              <td className="px-3 py-2 font-mono text-xs">{s.version}</td>
              <td className="px-3 py-2">
                <StatusBadge status={s.status} /> <OutcomeBadge outcome={s.outcome} reason={s.outcomeReason} />
              </td>
              <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(s.seenAt)}</td>
            </tr>
          );
        })}
      </DataTable>
      {canSplit && !splittable ? (
        <p className="border-t border-slate-200 px-4 py-3 text-sm text-slate-600" data-testid="split-unavailable">
          This cluster holds one session, so there is nothing to split off: rename it, or merge it into another cluster.
        </p>
      ) : null}
      {splittable ? (
        <div className="flex flex-wrap items-end gap-2 border-t border-slate-200 px-4 py-3">
          <Field label="Name of the new cluster" errors={form.fieldErrors("label")} className="min-w-[14rem] flex-1">
            <ClusterNameInput value={name} onValue={setName} />
          </Field>
          <ConfirmButton
            key={round}
            tone="primary"
            disabled={chosen.size === 0}
            question={`Split ${plural(chosen.size, "session")} off into a new cluster?`}
            details={`They leave this cluster (${size - chosen.size} stay) and stay in the new one while their signature does; new sessions with this signature keep landing here.`}
            confirmLabel="Split off"
            pendingLabel="Splitting…"
            pending={form.pending}
            onConfirm={() =>
              form.run(
                () =>
                  splitClusterAction({
                    clusterId,
                    sessionIds: [...chosen],
                    ...(name.trim() ? { label: name.trim() } : {}),
                  }),
                (result) => {
                  setDone(result.cluster);
                  setChosen(new Set());
                  setName("");
                  setRound((r) => r + 1);
                },
              )
            }
          >
            {chosen.size === 0 ? "Split off…" : `Split off ${plural(chosen.size, "session")}…`}
          </ConfirmButton>
          <ErrorLine message={form.error?.message} className="w-full" />
          {done && !form.error ? (
            <p role="status" className="w-full text-sm text-emerald-800">
              Split off into{" "}
              <Link href={`/failures/${done.id}`} className="font-medium text-indigo-700 underline">
                {done.label}
              </Link>{" "}
              ({plural(done.size, "session")}).
            </p>
          ) : null}
        </div>
      ) : null}
    </>
  );
}
