import Link from "next/link";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { formatDateTime } from "@/lib/format";
import type { PresentedCluster } from "@/lib/server/clusters/cluster-shared";

/** An agent's failure clusters, largest first: what failed, where, how often, since when. */
export function ClusterTable({ clusters }: { clusters: PresentedCluster[] }) {
  return (
    <DataTable
      label="Failure clusters"
      columns={[
        "Failure",
        "Step",
        numberColumn("Sessions"),
        { label: "First seen", nowrap: true },
        { label: "Last seen", nowrap: true },
      ]}
    >
      {clusters.map((c) => (
        <tr key={c.id} data-testid="cluster-row">
          <td className="px-3 py-2">
            <Link href={`/failures/${c.id}`} className="font-medium text-indigo-700 hover:underline">
              {c.label}
            </Link>
            {c.named ? (
              <div className="mt-0.5 max-w-[70ch] truncate font-mono text-xs text-slate-600">
                {[c.signature.errorType, c.signature.message].filter(Boolean).join(": ")}
              </div>
            ) : null}
          </td>
          <td className="px-3 py-2 font-mono text-xs text-slate-700">{c.signature.step || "run"}</td>
          <td className="px-3 py-2 text-right tabular-nums">{c.size}</td>
          <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(c.firstSeen)}</td>
          <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(c.lastSeen)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
