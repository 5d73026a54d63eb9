import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import Link from "next/link";
import { buildConversation } from "@/components/sessions/conversation";
import { SessionView } from "@/components/sessions/SessionView";
import { parseSessionView } from "@/components/sessions/views";
import { SessionTimeline } from "@/components/sessions/SessionTimeline";
import { buildWaterfall } from "@/components/sessions/waterfall";
import { sessionLabel } from "@/components/sessions/SessionTable";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { toSessionEvent } from "@/lib/db";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getSession } from "@/lib/server/sessions";
import { formatCost, formatDateTime, formatDuration, formatTokens } from "@/lib/format";
import { buttonClass } from "@/components/ui/Button";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams?: Promise<{ view?: string; q?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const session = await getSession(principal, { sessionId: id }, prisma).catch(() => null);
  return { title: session ? sessionLabel(session) : "Session not found" };
}

export default async function SessionPage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([
    params,
    searchParams ?? Promise.resolve({} as { view?: string; q?: string }),
  ]);
  const initialView = parseSessionView(query.view);
  const { principal, prisma } = await pageContext();
  const session = await orNotFound(getSession(principal, { sessionId: id }, prisma));
  const events = session.events.map(toSessionEvent);
  const stats: [string, string][] = [
    ["Steps", String(session.eventCount)],
    ["Model calls", String(session.modelCallCount)],
    ["Tool calls", String(session.toolCallCount)],
    ["Failed", String(session.errorCount)],
    ["Tokens", formatTokens(session.inputTokens + session.outputTokens)],
    ["Cost", formatCost(session.costUsd)],
    ["Duration", formatDuration(session.durationMs)],
    ["Started", formatDateTime(session.startedAt)],
  ];
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/sessions", label: "Sessions" }]}
        title={sessionLabel(session)}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={session.status} />
            <span>
              {session.agent.name} <Badge>{session.agent.adapter}</Badge> v{session.agentVersion.version}
            </span>
            <span className="text-slate-500">·</span>
            <span>imported as {session.format}</span>
          </span>
        }
        actions={
          can(principal, "replays.run") ? (
            <>
              <Link href={`/sessions/${session.id}/investigate`} className={buttonClass({ variant: "secondary" })}>
                Investigate
              </Link>
              <Link href={`/sessions/${session.id}/replay`} className={buttonClass()}>
                Replay this session
              </Link>
            </>
          ) : null
        }
      />
      <dl className="mb-6 grid grid-cols-2 gap-px overflow-hidden rounded-lg border border-slate-200 bg-slate-200 sm:grid-cols-4 lg:grid-cols-8">
        {stats.map(([label, value]) => (
          <div key={label} className="bg-white px-3 py-2">
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="text-sm font-medium text-slate-900 tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      {events.length === 0 ? (
        <EmptyState title="This session has no events">
          It was imported without steps; re-import it with its events.
        </EmptyState>
      ) : (
        <SessionView
          chat={buildConversation(events)}
          waterfall={buildWaterfall(events)}
          timeline={<SessionTimeline events={events} />}
          initialView={initialView}
          initialQuery={typeof query.q === "string" ? query.q.slice(0, 200) : ""}
        />
      )}
    </>
  );
}
