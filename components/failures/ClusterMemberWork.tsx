import Link from "next/link";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { formatDateTime } from "@/lib/format";
import { memberWorkPager } from "./member-work-pages";

type Work = {
  investigations: {
    id: string;
    kind: string;
    status: string;
    session: { id: string; label: string };
    createdAt: string;
  }[];
  reports: { id: string; title: string; status: string; createdAt: string; sessions: number }[];
  /** Which page of each list this is, its size, and how many there are of each in all. */
  page: number;
  pageSize: number;
  totals: { investigations: number; reports: number };
};

/** The pager under a list that has more than one page: "Reports 51–73 of 73", newer and older pages. */
function Pager({
  noun,
  shown,
  total,
  work,
  href,
}: {
  noun: string;
  shown: number;
  total: number;
  work: Work;
  href: (page: number) => string;
}) {
  const pager = memberWorkPager(noun, { page: work.page, pageSize: work.pageSize, shown, total });
  if (!pager) return null;
  return (
    <p className="flex flex-wrap gap-3 px-4 py-2 text-xs text-slate-700" data-testid="member-work-pager">
      <span>{pager.text}</span>
      {pager.newer !== null ? (
        <Link href={href(pager.newer)} className="text-indigo-700 hover:underline">
          Newer
        </Link>
      ) : null}
      {pager.older !== null ? (
        <Link href={href(pager.older)} className="text-indigo-700 hover:underline">
          Older
        </Link>
      ) : null}
    </p>
  );
}

/**
 * The blame searches run on the cluster's members and the reports about them, with links, a page of each (`href`
 * at `path?work=N`); what to do when none.
 */
export function ClusterMemberWork({ work, path }: { work: Work; path: string }) {
  const href = (page: number) => (page === 1 ? path : `${path}?work=${page}`);
  if (work.totals.investigations === 0 && work.totals.reports === 0)
    return (
      <p className="px-4 py-3 text-sm text-slate-600" data-testid="member-work-empty">
        No blame search or report on these sessions yet. Open one of the example sessions and start a blame search from
        it to find the step that decides the failure; a report can then be written from its replay.
      </p>
    );
  return (
    <div className="flex flex-col" data-testid="member-work">
      {work.totals.reports > 0 ? (
        <>
          <DataTable
            frame={false}
            label="Reports on these sessions"
            columns={["Report", "State", numberColumn("Sessions"), "Made"]}
          >
            {work.reports.map((r) => (
              <tr key={r.id} data-testid="member-report">
                <td className="px-3 py-2">
                  <Link href={`/reports/${r.id}`} className="text-indigo-700 hover:underline">
                    {r.title}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <Badge tone={r.status === "published" ? "good" : "neutral"}>{r.status}</Badge>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{r.sessions}</td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(r.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
          <Pager noun="Reports" shown={work.reports.length} total={work.totals.reports} work={work} href={href} />
        </>
      ) : (
        <p className="px-4 py-3 text-sm text-slate-600">No report on these sessions yet.</p>
      )}
      {work.totals.investigations > 0 ? (
        <>
          <DataTable
            frame={false}
            label="Blame searches on these sessions"
            columns={["Search", "Session", "State", "Started"]}
          >
            {work.investigations.map((i) => (
              <tr key={i.id} data-testid="member-investigation">
                <td className="px-3 py-2">
                  <Link href={`/investigations/${i.id}`} className="text-indigo-700 hover:underline">
                    {i.kind === "blame" ? "Blame search" : "Minimization"}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <Link href={`/sessions/${i.session.id}`} className="text-indigo-700 hover:underline">
                    {i.session.label}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <StatusBadge status={i.status} />
                </td>
                <td className="px-3 py-2 whitespace-nowrap text-slate-700">{formatDateTime(i.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
          <Pager
            noun="Blame searches"
            shown={work.investigations.length}
            total={work.totals.investigations}
            work={work}
            href={href}
          />
        </>
      ) : (
        <p className="px-4 py-3 text-sm text-slate-600">No blame search on these sessions yet.</p>
      )}
    </div>
  );
}
