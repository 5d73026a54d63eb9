import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import { noteReader } from "@/lib/server/notes";
import Link from "next/link";
import { CompareWithButton } from "@/components/sessions/CompareWithButton";
import { OutcomePanel } from "@/components/sessions/OutcomePanel";
import { OutcomeBadge } from "@/components/sessions/OutcomeBadge";
import { SessionView, type InitialWindow } from "@/components/sessions/SessionView";
import { parseSessionView } from "@/components/sessions/views";
import { sessionLabel } from "@/lib/session-list/labels";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getSessionOverview, listSessionSteps, readSessionConversation } from "@/lib/server/sessions/session-pages";
import { cache } from "react";
import { formatDateTime, formatDuration, formatTokens } from "@/lib/format";
import { CostBasis } from "@/components/sessions/CostBasis";
import { CostValue } from "@/components/sessions/CostValue";
import { sessionCost } from "@/lib/server/prices/prices";
import { buttonClass } from "@/components/ui/Button";
import { SessionAnnotations } from "@/components/sessions/SessionAnnotations";
import { listAnnotations } from "@/lib/server/sessions/annotations";
import { AddToReviewQueue } from "@/components/reviews/AddToReviewQueue";

export const dynamic = "force-dynamic";

/** Steps per window on this page: the first screen and a little more. */
const PAGE_WINDOW = 32;

/** The session's header, read once per request (the metadata and the page both need it). */
const overview = cache(async (id: string) => {
  const { principal, prisma } = await pageContext();
  return getSessionOverview(principal, { sessionId: id }, prisma);
});

type Query = { view?: string; q?: string; step?: string };
type Props = { params: Promise<{ id: string }>; searchParams?: Promise<Query> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const session = await overview(id).catch(() => null);
  return { title: session ? sessionLabel(session) : "Session not found" };
}

export default async function SessionPage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([params, searchParams ?? Promise.resolve({} as Query)]);
  const { principal, prisma } = await pageContext();
  const session = await orNotFound(overview(id));
  // A deep link to a step (`?step=12`) opens the steps view there.
  const stepParam = typeof query.step === "string" && /^-?\d{1,10}$/.test(query.step) ? Number(query.step) : null;
  const openSeq =
    stepParam !== null && session.firstSeq !== null && stepParam >= session.firstSeq && stepParam <= session.lastSeq!
      ? stepParam
      : null;
  const initialView = openSeq !== null ? "timeline" : parseSessionView(query.view);
  const initialQuery = typeof query.q === "string" ? query.q.slice(0, 200) : "";
  // Only the first screen comes with the page: one window of steps, of the view it opens on.
  const first = session.firstSeq === null ? null : session.firstSeq;
  const cursor =
    first === null
      ? null
      : openSeq === null
        ? first
        : first + Math.floor((openSeq - first) / PAGE_WINDOW) * PAGE_WINDOW;
  let initial: InitialWindow | null = null;
  if (cursor !== null && !initialQuery.trim()) {
    const ref = { sessionId: id, cursor, limit: PAGE_WINDOW };
    initial =
      initialView === "chat"
        ? { kind: "chat", cursor, items: (await readSessionConversation(principal, ref, prisma)).items }
        : { kind: "steps", cursor, steps: (await listSessionSteps(principal, ref, prisma)).steps };
  }
  const [cost, annotations] = await Promise.all([
    sessionCost(principal, id, prisma),
    listAnnotations(principal, { sessionId: id }, prisma),
  ]);
  const stats: [string, React.ReactNode][] = [
    ["Steps", String(session.eventCount)],
    ["Model calls", String(session.modelCallCount)],
    ["Tool calls", String(session.toolCallCount)],
    ["Failed", String(session.errorCount)],
    ["Tokens", formatTokens(session.inputTokens + session.outputTokens)],
    ["Cost", <CostValue key="cost" usd={session.costUsd} source={session.costSource} />],
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
            <OutcomeBadge outcome={session.outcome} reason={session.outcomeReason} />
            {session.demo ? <Badge>demo data</Badge> : null}
            <span>
              <Link
                href={`/agents/${session.agentId}`}
                className="text-indigo-700 underline"
                title="This agent's runs, failures, cost and latency over time"
              >
                {session.agent.name}
              </Link>{" "}
              <Badge>{session.agent.adapter}</Badge> version {session.agentVersion.version}
            </span>
            <span className="text-slate-500">·</span>
            <span>imported as {session.format}</span>
          </span>
        }
        actions={
          <>
            {/* Reading two sessions side by side needs no more than reading them. */}
            <CompareWithButton sessionId={session.id} agent={session.agent.name} />
            {can(principal, "notes.write") ? <AddToReviewQueue sessionId={session.id} /> : null}
            {can(principal, "replays.run") ? (
              <>
                <Link href={`/sessions/${session.id}/investigate`} className={buttonClass({ variant: "secondary" })}>
                  Investigate
                </Link>
                <Link href={`/sessions/${session.id}/replay`} className={buttonClass()}>
                  Replay this session
                </Link>
              </>
            ) : null}
          </>
        }
      />
      <OutcomePanel session={session} canReplay={can(principal, "replays.run")} />
      <dl className="mb-6 grid grid-cols-2 gap-px overflow-hidden rounded-lg border border-slate-200 bg-slate-200 sm:grid-cols-4 lg:grid-cols-8">
        {stats.map(([label, value]) => (
          <div key={label} className="bg-white px-3 py-2">
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="text-sm font-medium text-slate-900 tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
      <CostBasis cost={cost} />
      <SessionAnnotations
        sessionId={session.id}
        steps={session.eventCount}
        annotations={annotations}
        reader={noteReader(principal)}
      />
      {session.firstSeq === null || session.lastSeq === null ? (
        <EmptyState title="This session has no events">
          It was imported without steps; re-import it with its events.
        </EmptyState>
      ) : (
        <SessionView
          sessionId={session.id}
          span={{ firstSeq: session.firstSeq, lastSeq: session.lastSeq, window: PAGE_WINDOW }}
          t0={session.startedAt ? session.startedAt.getTime() : null}
          totalMs={session.durationMs ?? 0}
          initialView={initialView}
          initialQuery={initialQuery}
          initial={initial}
          openSeq={openSeq}
        />
      )}
    </>
  );
}
