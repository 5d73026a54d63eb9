import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import type { ExperimentListEntry } from "@/lib/server/experiments/experiments";
import { formatDateTime } from "@/lib/format";
import { CardTable } from "@/components/ui/DataTable";

/** Experiments, newest first: policy version and hash, agent version, progress, status. */
export function ExperimentList({ experiments }: { experiments: readonly ExperimentListEntry[] }) {
  return (
    <CardTable
      columns={["Experiment", "Policy", "Agent version", "Progress", "Status", { label: "Started", nowrap: true }]}
    >
      {experiments.map((e) => (
        <tr key={e.id} className="border-t border-slate-100 hover:bg-slate-50" data-testid="experiment-row">
          <td className="px-3 py-2">
            <Link href={`/experiments/${e.id}`} className="font-medium text-indigo-700 hover:underline">
              {e.name}
            </Link>
          </td>
          <td className="px-3 py-2">
            <Link href={`/policies/${e.policyVersion.policy.id}`} className="hover:underline">
              {e.policyVersion.policy.name} v{e.policyVersion.version}
            </Link>
            <div className="font-mono text-xs text-slate-500" title={e.policyVersion.hash}>
              {e.policyVersion.hash.slice(0, 12)}
            </div>
          </td>
          <td className="px-3 py-2">
            {e.agentVersion.agent.name} <Badge>{e.agentVersion.version}</Badge>
          </td>
          <td className="px-3 py-2">
            <div className="flex items-center gap-2">
              <div className="h-1.5 w-24 overflow-hidden rounded-full bg-slate-100" aria-hidden="true">
                <div
                  className="h-full rounded-full bg-indigo-500"
                  style={{ width: `${e.total === 0 ? 0 : Math.round((e.done / e.total) * 100)}%` }}
                />
              </div>
              <span className="whitespace-nowrap tabular-nums text-slate-700">
                {e.done} / {e.total}
              </span>
            </div>
          </td>
          <td className="px-3 py-2">
            <StatusBadge status={e.state} />
          </td>
          <td className="px-3 py-2 text-slate-600">{formatDateTime(e.createdAt)}</td>
        </tr>
      ))}
    </CardTable>
  );
}
