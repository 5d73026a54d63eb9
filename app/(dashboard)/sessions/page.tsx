import type { Metadata } from "next";
import { z } from "zod";
import { SessionFilters } from "@/components/sessions/SessionFilters";
import { SessionTable } from "@/components/sessions/SessionTable";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listSessions } from "@/lib/server/sessions/sessions";

export const metadata: Metadata = { title: "Sessions" };
export const dynamic = "force-dynamic";

const Query = z.object({
  agent: z.string().max(200).optional().catch(undefined),
  status: z.enum(["completed", "failed", "incomplete"]).optional().catch(undefined),
  tool: z.string().max(200).optional().catch(undefined),
  q: z.string().max(200).optional().catch(undefined),
  cursor: z.string().max(64).optional().catch(undefined),
});

export default async function SessionsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const raw = await searchParams;
  const query = Query.parse(
    Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, (Array.isArray(v) ? v[0] : v) || undefined])),
  );
  const { principal, prisma } = await pageContext();
  const { sessions, nextCursor, facets, total } = await listSessions(principal, { ...query, limit: 50 }, prisma);
  const filtered = Boolean(query.agent || query.status || query.tool || query.q);
  const params = new URLSearchParams(
    Object.entries({ ...query, cursor: undefined }).filter((e): e is [string, string] => typeof e[1] === "string"),
  );

  return (
    <>
      <PageHeader
        title="Sessions"
        subtitle={`${filtered ? "Matches among " : ""}${total} recorded run${total === 1 ? "" : "s"} · newest first`}
      />
      <SessionFilters agents={facets.agents.map((a) => a.name)} tools={facets.tools} values={query} />
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
          <EmptyState title="No sessions yet" link={{ href: "/import", label: "Import sessions" }}>
            Import a recorded run: a native JSON session, an OpenAI chat log (τ-bench trajectories work as they are), or
            point an OpenTelemetry exporter at <code className="font-mono">/v1/traces</code>.
          </EmptyState>
        )
      ) : (
        <SessionTable sessions={sessions} />
      )}
      {(query.cursor || nextCursor) && (
        <nav aria-label="Pages" className="mt-4 flex justify-between text-sm">
          {query.cursor ? (
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
              Older sessions →
            </a>
          ) : null}
        </nav>
      )}
    </>
  );
}
