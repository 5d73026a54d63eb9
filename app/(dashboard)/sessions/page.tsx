import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SavedViews } from "@/components/sessions/SavedViews";
import { LiveTail } from "@/components/sessions/LiveTail";
import { SessionFilters } from "@/components/sessions/SessionFilters";
import { SessionTable } from "@/components/sessions/SessionTable";
import { EmptyState, NoSessionsYet } from "@/components/ui/EmptyState";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { FailedRunsLead } from "@/components/sessions/FailedRunsLead";
import { failedRuns } from "@/lib/server/sessions/failed-runs";
import { listSessions } from "@/lib/server/sessions/sessions";
import { can } from "@/lib/server/authz";
import { listDatasets } from "@/lib/server/datasets/datasets";
import { MAX_DATASET_SESSIONS } from "@/lib/server/datasets/dataset-inputs";
import { DEFAULT_SESSION_SORT, hasFilters, parseListUrl, type SessionSort } from "@/lib/session-list/query";

export const metadata: Metadata = { title: "Sessions" };
export const dynamic = "force-dynamic";

/** How the order reads under the title. */
const ORDER_WORDS: Record<SessionSort, string> = {
  "-createdAt": "newest first",
  createdAt: "oldest first",
  "-startedAt": "latest start first",
  startedAt: "earliest start first",
  "-costUsd": "most expensive first",
  costUsd: "cheapest first",
  "-durationMs": "longest first",
  durationMs: "shortest first",
  "-errorCount": "most errors first",
  errorCount: "fewest errors first",
  "-steps": "most steps first",
  steps: "fewest steps first",
};

export default async function SessionsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const { query, kept, ignored } = parseListUrl(raw);
  const { cursor: _cursor, limit: _limit, ...shareable } = kept;
  const params = new URLSearchParams(shareable);
  // A form sends its empty fields too: the URL one shares names only what filters.
  if (Object.values(raw).some((v) => v === "")) {
    const clean = new URLSearchParams(params);
    if (kept.cursor) clean.set("cursor", kept.cursor);
    redirect(`/sessions${clean.size ? `?${clean.toString()}` : ""}`);
  }
  const { principal, prisma } = await pageContext();
  const filtered = hasFilters(query);
  const writesDatasets = can(principal, "datasets.write");
  const [{ sessions, nextCursor, facets, total, matching }, failed, datasets] = await Promise.all([
    listSessions(principal, { ...query, limit: 50 }, prisma),
    filtered || query.cursor ? null : failedRuns(principal, {}, prisma),
    writesDatasets ? listDatasets(principal, {}, prisma) : null,
  ]);
  const { sort: _sort, ...filterOnly } = shareable;
  const sort = query.sort ?? DEFAULT_SESSION_SORT;
  const count = filtered ? `${matching} of ${total} recorded runs` : `${total} recorded run${total === 1 ? "" : "s"}`;

  return (
    <>
      <PageHeader title="Sessions" subtitle={`${count} · ${ORDER_WORDS[sort]}`} />
      {ignored.length ? (
        <Notice tone="warning" className="mb-4" title="Some of this link's filters were left out">
          <ul className="list-disc pl-5">
            {ignored.map((i) => (
              <li key={i.path}>{i.message}</li>
            ))}
          </ul>
        </Notice>
      ) : null}
      <SessionFilters
        agents={facets.agents.map((a) => a.name)}
        tools={facets.tools}
        labels={facets.labels}
        values={shareable}
        filtered={filtered}
      />
      {failed ? <FailedRunsLead {...failed} /> : null}
      <div className="flex flex-wrap items-start justify-between gap-x-3">
        <SavedViews user={principal.userId ?? principal.name} query={params.toString()} />
        {/* New runs come first on the first page in the usual order: that is where watching shows them. */}
        {kept.cursor ? null : <LiveTail total={matching} />}
      </div>
      {sessions.length === 0 ? (
        filtered ? (
          <EmptyState title="No session matches these filters">
            Loosen a filter or{" "}
            <a className="text-indigo-700 underline" href="/sessions">
              clear them all
            </a>
            .
          </EmptyState>
        ) : (
          <NoSessionsYet>
            Import a recorded run: a native JSON session, an OpenAI chat log (τ-bench trajectories work as they are), or
            point an OpenTelemetry exporter at <code className="font-mono">/v1/traces</code>.
          </NoSessionsYet>
        )
      ) : (
        <SessionTable
          sessions={sessions}
          sort={sort}
          query={params.toString()}
          matching={matching}
          datasets={datasets?.map((d) => ({ id: d.id, name: d.name, size: d.size })) ?? null}
          filter={writesDatasets && filtered ? filterOnly : null}
          maxDatasetSessions={MAX_DATASET_SESSIONS}
        />
      )}
      {(kept.cursor || nextCursor) && (
        <nav aria-label="Pages" className="mt-4 flex justify-between text-sm">
          {kept.cursor ? (
            <a className="text-indigo-700 hover:underline" href={`/sessions?${params.toString()}`}>
              ← First page
            </a>
          ) : (
            <span />
          )}
          {nextCursor ? (
            <a
              className="text-indigo-700 hover:underline"
              href={`/sessions?${new URLSearchParams([...params, ["cursor", nextCursor]]).toString()}`}
            >
              Next page →
            </a>
          ) : null}
        </nav>
      )}
    </>
  );
}
