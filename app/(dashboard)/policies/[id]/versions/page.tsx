import type { Metadata } from "next";
import Link from "next/link";
import { z } from "zod";
import { VersionDiff } from "@/components/policies/VersionDiff";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getPolicy } from "@/lib/server/policies/policies";
import { formatDateTime } from "@/lib/format";
import { Button } from "@/components/ui/Button";
import { DataTable } from "@/components/ui/DataTable";

export const metadata: Metadata = { title: "Policy versions" };
export const dynamic = "force-dynamic";

const Query = z.object({
  a: z.coerce.number().int().positive().optional().catch(undefined),
  b: z.coerce.number().int().positive().optional().catch(undefined),
});

export default async function PolicyVersionsPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const { id } = await params;
  const raw = await searchParams;
  const query = Query.parse(Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v])));
  const { principal, prisma } = await pageContext();
  const policy = await orNotFound(getPolicy(principal, { policyId: id }, prisma));
  const versions = policy.versions; // newest first
  const byNumber = new Map(versions.map((v) => [v.version, v]));
  const b = byNumber.get(query.b ?? versions[0]?.version ?? 0) ?? versions[0];
  const a = byNumber.get(query.a ?? (b ? b.version - 1 : 0)) ?? versions.find((v) => b && v.version < b.version) ?? b;

  return (
    <>
      <PageHeader
        title={`${policy.name}: versions`}
        subtitle={
          <span>
            <Link href={`/policies/${policy.id}`} className="text-indigo-700 underline">
              Back to the editor
            </Link>{" "}
            · every version is immutable; the same document always has the same hash
          </span>
        }
      />
      {versions.length === 0 ? (
        <EmptyState title="No saved versions yet">
          Open the{" "}
          <Link href={`/policies/${policy.id}`} className="text-indigo-700 underline">
            editor
          </Link>
          , fix any errors and save: each save of a changed document becomes a new version here.
        </EmptyState>
      ) : (
        <div className="space-y-6">
          <DataTable
            label="Versions"
            columns={["Version", "Hash", "Note", "Saved", { label: "Actions", srOnly: true }]}
          >
            {versions.map((v) => (
              <tr key={v.id} data-testid="version-row">
                <td className="px-3 py-2 font-medium tabular-nums">v{v.version}</td>
                <td className="px-3 py-2 font-mono text-xs text-slate-600" title={v.hash}>
                  {v.hash.slice(0, 16)}
                </td>
                <td className="px-3 py-2 text-slate-700">{v.note ?? <span className="text-slate-500">—</span>}</td>
                <td className="px-3 py-2 text-xs whitespace-nowrap text-slate-500">{formatDateTime(v.createdAt)}</td>
                <td className="px-3 py-2 text-right text-xs">
                  {v.version > 1 ? (
                    <Link
                      href={`/policies/${policy.id}/versions?a=${v.version - 1}&b=${v.version}`}
                      className="text-indigo-700 hover:underline"
                    >
                      Diff with v{v.version - 1}
                    </Link>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
          {a && b ? (
            <section aria-label="Diff between versions" className="space-y-3">
              <form method="get" className="flex flex-wrap items-end gap-3 text-xs">
                <VersionSelect name="a" label="From" versions={versions} selected={a.version} />
                <VersionSelect name="b" label="To" versions={versions} selected={b.version} />
                <Button type="submit" variant="secondary">
                  Compare
                </Button>
              </form>
              <h2 className="text-sm font-semibold text-slate-900" data-testid="diff-title">
                v{a.version} → v{b.version}
                {a.hash === b.hash ? " (same document)" : ""}
              </h2>
              <VersionDiff
                original={JSON.stringify(a.document, null, 2)}
                modified={JSON.stringify(b.document, null, 2)}
                sides={{ original: `Version ${a.version}`, modified: `Version ${b.version}` }}
              />
            </section>
          ) : null}
        </div>
      )}
    </>
  );
}

function VersionSelect({
  name,
  label,
  versions,
  selected,
}: {
  name: "a" | "b";
  label: "From" | "To";
  versions: { id: string; version: number; hash: string }[];
  selected: number;
}) {
  return (
    <label className="font-medium text-slate-600">
      {label}
      <select
        name={name}
        aria-label={`${label} version`}
        defaultValue={selected}
        className="mt-1 block rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
      >
        {versions.map((v) => (
          <option key={v.id} value={v.version}>
            v{v.version} · {v.hash.slice(0, 8)}
          </option>
        ))}
      </select>
    </label>
  );
}
