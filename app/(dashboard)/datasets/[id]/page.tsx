import type { Metadata } from "next";
import Link from "next/link";
import { DatasetActions } from "@/components/datasets/DatasetActions";
import { DatasetMembers } from "@/components/datasets/DatasetMembers";
import { StatusBadge } from "@/components/ui/Badge";
import { buttonClass } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime, plural } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { MEMBERS_PAGE } from "@/lib/server/datasets/dataset-inputs";
import { getDataset } from "@/lib/server/datasets/datasets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dataset" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[]>> };

export default async function DatasetPage({ params, searchParams }: Props) {
  const { id } = await params;
  const raw = (await searchParams).offset;
  const asked = Number(Array.isArray(raw) ? raw[0] : raw);
  const offset = Number.isInteger(asked) && asked > 0 ? Math.min(asked, 5000) : 0;
  const { principal, prisma } = await pageContext();
  const { dataset, members, experiments } = await orNotFound(
    getDataset(principal, { datasetId: id, offset, limit: MEMBERS_PAGE }, prisma),
  );
  const writes = can(principal, "datasets.write");
  const runs = can(principal, "experiments.run");
  const last = Math.min(members.offset + members.items.length, members.total);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/datasets", label: "Datasets" }]}
        title={dataset.name}
        subtitle={
          <>
            {dataset.description ? <span className="block break-words">{dataset.description}</span> : null}
            <span data-testid="dataset-about">
              {plural(dataset.size, "session")} · made by {dataset.createdBy} on {formatDateTime(dataset.createdAt)}
            </span>
          </>
        }
        actions={
          <div className="flex flex-wrap items-center gap-2">
            {runs && dataset.size > 0 ? (
              <Link href={`/experiments/new?dataset=${encodeURIComponent(dataset.id)}`} className={buttonClass()}>
                Run an experiment over this dataset
              </Link>
            ) : null}
            {writes ? (
              <DatasetActions id={dataset.id} name={dataset.name} description={dataset.description ?? ""} />
            ) : null}
          </div>
        }
      />
      {members.total === 0 ? (
        <EmptyState title="This dataset holds no sessions" link={{ href: "/sessions", label: "Choose sessions" }}>
          Tick sessions in the session list and add them to this dataset.
        </EmptyState>
      ) : (
        <section aria-labelledby="members-title" className="space-y-2">
          <h2 id="members-title" className="text-sm font-semibold text-slate-900">
            Sessions {members.offset + 1}–{last} of {members.total}
          </h2>
          <DatasetMembers datasetId={dataset.id} members={members.items} canRemove={writes} />
          {members.offset > 0 || last < members.total ? (
            <nav aria-label="Pages" className="flex justify-between text-sm">
              {members.offset > 0 ? (
                <Link
                  href={`/datasets/${dataset.id}?offset=${Math.max(0, members.offset - members.limit)}`}
                  className="text-indigo-700 hover:underline"
                >
                  ← Previous page
                </Link>
              ) : (
                <span />
              )}
              {last < members.total ? (
                <Link href={`/datasets/${dataset.id}?offset=${last}`} className="text-indigo-700 hover:underline">
                  Next page →
                </Link>
              ) : null}
            </nav>
          ) : null}
        </section>
      )}
      {experiments.length > 0 ? (
        <section aria-labelledby="experiments-title" className="mt-6">
          <h2 id="experiments-title" className="mb-2 text-sm font-semibold text-slate-900">
            Experiments over this dataset
          </h2>
          <Card as="div" padding="none">
            <ul className="divide-y divide-slate-100">
              {experiments.map((e) => (
                <li key={e.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
                  <Link href={`/experiments/${e.id}`} className="font-medium text-indigo-700 hover:underline">
                    {e.name}
                  </Link>
                  <StatusBadge status={e.status} />
                  <span className="text-xs text-slate-600">{formatDateTime(e.createdAt)}</span>
                </li>
              ))}
            </ul>
          </Card>
        </section>
      ) : null}
    </>
  );
}
