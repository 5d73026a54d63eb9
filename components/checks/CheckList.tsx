import Link from "next/link";
import { DataTable } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { CheckDefinition } from "@/lib/replay";
import { CHECK_KINDS, describeCheck } from "./describe";

export interface SavedCheck {
  id: string;
  name: string;
  definition: unknown;
  createdBy: string | null;
  createdAt: string;
}

/** The saved outcome checks: what each asks of a run, and who saved it. */
export function CheckList({ checks }: { checks: readonly SavedCheck[] }) {
  if (checks.length === 0)
    return (
      <EmptyState title="No outcome checks yet">
        Save one with the form: for example &ldquo;Final answer contains text: refunded&rdquo;. Then choose it when you
        start a replay or an experiment, and each run reads &ldquo;base failed → branch passed&rdquo;.
      </EmptyState>
    );
  return (
    <DataTable columns={["Name", "Kind", "Asks", { label: "Saved by", nowrap: true }]} label="Outcome checks">
      {checks.map((c) => {
        const parsed = CheckDefinition.safeParse(c.definition);
        return (
          <tr key={c.id} data-testid="check-row">
            <td className="px-3 py-2 font-medium">
              <Link href={`/checks/${c.id}`} className="text-indigo-700 hover:underline">
                {c.name}
              </Link>
            </td>
            <td className="px-3 py-2 text-slate-700">{parsed.success ? CHECK_KINDS[parsed.data.kind] : "Unknown"}</td>
            <td className="px-3 py-2 font-mono text-xs break-all text-slate-700">
              {parsed.success ? describeCheck(parsed.data) : "This stored check is no longer valid."}
            </td>
            <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-600">
              {c.createdBy ?? "unknown"} · {c.createdAt.slice(0, 10)}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
