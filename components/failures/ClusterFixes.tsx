import Link from "next/link";
import { StatusBadge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { DataTable } from "@/components/ui/DataTable";
import { formatDateTime } from "@/lib/format";
import type { ClusterFixView } from "@/lib/server/clusters/cluster-fixes";

/** How a fix's members are judged, in words. */
export function judgeWords(judge: ClusterFixView["judge"]): string {
  return judge.kind === "check"
    ? `fixed when the branch passes the check "${judge.checkName}"`
    : "fixed when the branch runs to its end with no unrecovered tool failure";
}

/** The fixes tried on a cluster: which policy, and what it fixed and broke. */
export function ClusterFixes({ fixes }: { fixes: readonly ClusterFixView[] }) {
  return (
    <DataTable frame={false} label="Fixes tried" columns={["Policy", "Result", "Status", "Started"]}>
      {fixes.map((f) => (
        <tr key={f.id} data-testid="cluster-fix">
          <td className="px-3 py-2">
            <Link href={`/experiments/${f.experimentId}`} className="text-indigo-700 hover:underline">
              {f.policy.name} v{f.policy.version}
            </Link>
            {f.edits.length > 0 ? (
              <p className="text-xs text-slate-600" data-testid="cluster-fix-edits">
                Edits: {f.edits.map((e) => e.tool).join(", ")}
              </p>
            ) : null}
          </td>
          <td className="px-3 py-2 text-sm text-slate-900" title={judgeWords(f.judge)}>
            {f.figures.sentence}
          </td>
          <td className="px-3 py-2">
            <StatusBadge status={f.status} />
          </td>
          <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(f.createdAt)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** On a fix's experiment page: which cluster it was tried on, and what it fixed and broke. */
export function ClusterFixCard({ fix }: { fix: ClusterFixView & { clusterLabel: string | null } }) {
  return (
    <Card title="Fix of a failure cluster" className="mb-4">
      <p className="text-sm text-slate-900" data-testid="cluster-fix-figures">
        <strong>{fix.figures.sentence}</strong>
      </p>
      <p className="mt-1 text-xs text-slate-600">
        Tried on{" "}
        <Link href={`/failures/${fix.clusterId}`} className="text-indigo-700 hover:underline">
          {fix.clusterLabel ?? "a cluster since merged"}
        </Link>{" "}
        over {fix.sample === null ? "all of its sessions" : `a sample of ${fix.sample}`} (seed {fix.seed})
        {fix.controlSample > 0 ? ` and a control sample of passing sessions` : ""}; {judgeWords(fix.judge)}.
      </p>
    </Card>
  );
}
