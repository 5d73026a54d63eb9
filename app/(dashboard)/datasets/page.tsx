import type { Metadata } from "next";
import Link from "next/link";
import { CardTable, numberColumn } from "@/components/ui/DataTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { pageContext } from "@/lib/http/page";
import { listDatasets } from "@/lib/server/datasets/datasets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Datasets" };

export default async function DatasetsPage() {
  const { principal, prisma } = await pageContext();
  const datasets = await listDatasets(principal, {}, prisma);
  return (
    <>
      <PageHeader
        title="Datasets"
        subtitle="Named lists of sessions, frozen when saved: the cohort an experiment can run over. Newest first."
      />
      {datasets.length === 0 ? (
        <EmptyState title="No datasets yet" link={{ href: "/sessions", label: "Choose sessions" }}>
          Tick sessions in the session list and save them as a dataset, or save a filter&apos;s matches as one. An
          experiment can then replay exactly those sessions.
        </EmptyState>
      ) : (
        <CardTable
          label="Datasets"
          columns={[
            "Dataset",
            numberColumn("Sessions"),
            { label: "Made by", className: "hidden sm:table-cell" },
            { label: "Made", nowrap: true, className: "hidden sm:table-cell" },
          ]}
        >
          {datasets.map((d) => (
            <tr key={d.id} className="border-t border-slate-100 align-top hover:bg-slate-50" data-testid="dataset-row">
              <td className="px-3 py-2">
                <Link href={`/datasets/${d.id}`} className="font-medium break-words text-indigo-700 hover:underline">
                  {d.name}
                </Link>
                {d.description ? (
                  <p className="line-clamp-2 text-xs break-words text-slate-600">{d.description}</p>
                ) : null}
                <p className="text-xs text-slate-600 sm:hidden">
                  {d.createdBy} · {formatDateTime(d.createdAt)}
                </p>
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{d.size}</td>
              <td className="hidden px-3 py-2 text-slate-700 sm:table-cell">{d.createdBy}</td>
              <td className="hidden px-3 py-2 whitespace-nowrap text-slate-600 sm:table-cell">
                {formatDateTime(d.createdAt)}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </>
  );
}
