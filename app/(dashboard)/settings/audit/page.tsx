import type { Metadata } from "next";
import Link from "next/link";
import { DataTable } from "@/components/ui/DataTable";
import { PageHeader } from "@/components/ui/PageHeader";
import { db } from "@/lib/db";
import { AUDIT_ACTIONS } from "@/lib/db/audit";
import { pagePrincipal } from "@/lib/http/principal";
import { can } from "@/lib/server/authz";
import { readAuditLog } from "@/lib/server/team/team";
import { Button } from "@/components/ui/Button";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

const COLUMNS = [{ label: "When (UTC)", nowrap: true }, "Who", "Action", "On", "Detail"];

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<{ action?: string; actor?: string; cursor?: string }>;
}) {
  const principal = await pagePrincipal();
  if (!can(principal, "audit.read")) return <PageHeader title="Audit log" subtitle="Only admins read the audit log." />;
  const query = await searchParams;
  const action = (AUDIT_ACTIONS as readonly string[]).includes(query.action ?? "") ? query.action : undefined;
  const log = await readAuditLog(await db(), principal, {
    action,
    actor: query.actor || undefined,
    cursor: query.cursor || undefined,
  });
  const next = new URLSearchParams({ ...(action ? { action } : {}), ...(query.actor ? { actor: query.actor } : {}) });
  if (log.nextCursor) next.set("cursor", log.nextCursor);
  return (
    <>
      <PageHeader
        title="Audit log"
        subtitle="Sign-ins, role changes, invitations, API keys, executor changes, live-call decisions and share links, with who did them. Nothing here is edited or deleted."
      />
      <form className="mb-4 flex flex-wrap items-end gap-3 text-sm" method="get" aria-label="Filter">
        <label className="flex flex-col">
          Action
          <select
            name="action"
            defaultValue={action ?? ""}
            className="mt-1 rounded-md border border-slate-300 px-2 py-1.5"
          >
            <option value="">any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col">
          Who
          <input
            name="actor"
            defaultValue={query.actor ?? ""}
            className="mt-1 rounded-md border border-slate-300 px-2 py-1.5"
          />
        </label>
        <Button variant="secondary" type="submit">
          Filter
        </Button>
      </form>
      <DataTable columns={COLUMNS} label="Audit log">
        {log.events.map((e) => (
          <tr key={e.id} className="align-top" data-testid="audit-row">
            <td className="px-3 py-2 whitespace-nowrap">{e.createdAt.toISOString().slice(0, 19).replace("T", " ")}</td>
            <td className="px-3 py-2">{e.actorName}</td>
            <td className="px-3 py-2 whitespace-nowrap">{e.action}</td>
            <td className="px-3 py-2 break-words">{e.target ?? ""}</td>
            <td className="min-w-48 px-3 py-2 font-mono text-xs break-words text-slate-600">{detailText(e.detail)}</td>
          </tr>
        ))}
      </DataTable>
      {log.events.length === 0 ? <p className="mt-4 text-sm text-slate-500">Nothing recorded matches.</p> : null}
      {log.nextCursor ? (
        <p className="mt-4 text-sm">
          <Link href={`/settings/audit?${next.toString()}`} className="text-indigo-700 underline">
            Older entries →
          </Link>
        </p>
      ) : null}
    </>
  );
}

/** A detail as `key: value` pairs in key order (the database keeps JSON keys in its own order). */
function detailText(detail: unknown): string {
  if (!detail || typeof detail !== "object" || Array.isArray(detail)) return JSON.stringify(detail);
  const record = detail as Record<string, unknown>;
  return Object.keys(record)
    .sort()
    .map((k) => `${k}: ${typeof record[k] === "string" ? record[k] : JSON.stringify(record[k])}`)
    .join(" · ");
}
