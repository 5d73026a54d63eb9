import type { Metadata } from "next";
import Link from "next/link";
import { CompareView } from "@/components/compare/CompareView";
import { FinalOutputDiff } from "@/components/compare/FinalOutputDiff";
import { MetricsTable } from "@/components/compare/MetricsTable";
import { sessionName } from "@/components/sessions/crumbs";
import { OutcomeBadge } from "@/components/sessions/OutcomeBadge";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { buttonClass } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { formatDateTime } from "@/lib/format";
import { orNotFound, pageContext } from "@/lib/http/page";
import {
  findSessionComparisonRow,
  getSessionComparison,
  listSessionComparisonRows,
  type PresentedComparedSession,
} from "@/lib/server/sessions/session-compare";
import { finalText, parseCompareState } from "@/lib/session-view/compare-rows";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare two sessions" };

/** Rows per window: the first screen and a little more. */
const ROWS_PER_WINDOW = 100;

/** What the two sides are called here: the list's narrow columns, the pair's title, the diff and the metrics. */
const LABELS = { base: "run A", branch: "run B" };

type Props = {
  params: Promise<{ id: string; otherId: string }>;
  searchParams: Promise<{ pair?: string; filter?: string }>;
};

/** One side's name, link and figures, as the header lists them. */
function Side({ letter, session }: { letter: string; session: PresentedComparedSession }) {
  return (
    <li className="flex min-w-0 flex-wrap items-center gap-2">
      <Badge tone="info">{letter}</Badge>
      <Link href={`/sessions/${session.id}`} className="min-w-0 truncate font-medium text-indigo-700 hover:underline">
        {sessionName(session)}
      </Link>
      <StatusBadge status={session.status} />
      <OutcomeBadge outcome={session.outcome} />
      <span className="text-slate-600">
        {session.agent} {session.agentVersion} · {session.eventCount} steps
        {session.startedAt ? ` · ${formatDateTime(new Date(session.startedAt))}` : ""}
      </span>
    </li>
  );
}

/**
 * Any two recorded sessions step by step (two runs of one task, before and after a release): the comparison page
 * of a replay, with session `id` as run A (the base side) and `otherId` as run B.
 */
export default async function CompareSessionsPage({ params, searchParams }: Props) {
  const [{ id, otherId }, query] = await Promise.all([params, searchParams]);
  if (id === otherId)
    return (
      <EmptyState title="Pick another session to compare with">
        Both sides name the same session.{" "}
        <Link href={`/sessions/${id}`} className="text-indigo-700 underline">
          Back to the session
        </Link>{" "}
        and choose “Compare with…”.
      </EmptyState>
    );
  const { principal, prisma } = await pageContext();
  const ref = { sessionId: id, otherId };
  const view = await orNotFound(getSessionComparison(principal, ref, prisma));
  const { filter, pair } = parseCompareState(query);
  const [firstDivergence, selectedInFilter, selectedAnywhere] = await Promise.all([
    view.firstDivergence
      ? findSessionComparisonRow(principal, { ...ref, filter: "all", pair: view.firstDivergence.id }, prisma)
      : null,
    pair ? findSessionComparisonRow(principal, { ...ref, filter, pair }, prisma) : null,
    pair && filter !== "all" ? findSessionComparisonRow(principal, { ...ref, filter: "all", pair }, prisma) : null,
  ]);
  // As on a replay's comparison: a linked pair opens beside the list, else the first divergence.
  const selected =
    selectedInFilter ??
    (selectedAnywhere ? { position: -1, row: selectedAnywhere.row } : null) ??
    (!pair && firstDivergence ? { position: -1, row: firstDivergence.row } : null);
  const cursor = selectedInFilter ? Math.floor(selectedInFilter.position / ROWS_PER_WINDOW) * ROWS_PER_WINDOW : 0;
  const rows = await listSessionComparisonRows(principal, { ...ref, filter, cursor, limit: ROWS_PER_WINDOW }, prisma);
  const { base, branch } = view;
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/sessions", label: "Sessions" },
          { href: `/sessions/${base.id}`, label: sessionName(base) },
        ]}
        title="Compare two runs"
        subtitle={
          <ul className="mt-1 space-y-1" data-testid="compared-sessions">
            <Side letter="A" session={base} />
            <Side letter="B" session={branch} />
          </ul>
        }
        actions={
          <Link
            href={`/sessions/${branch.id}/compare/${base.id}`}
            className={buttonClass({ variant: "secondary" })}
            data-testid="swap-sides"
          >
            Swap A and B
          </Link>
        }
      />
      {view.firstDivergence ? (
        <Notice tone="warning" className="mb-4" testId="first-divergence">
          First divergence at pair {view.firstDivergence.pairIndex} (run A step {view.firstDivergence.baseSeq ?? "—"},
          run B step {view.firstDivergence.branchSeq ?? "—"}): {view.firstDivergence.summary}
        </Notice>
      ) : (
        <Notice tone="success" className="mb-4" testId="first-divergence">
          The two runs are the same step for step: every aligned step is equal.
        </Notice>
      )}
      <CompareView
        source={{ kind: "sessions", sessionId: base.id, otherId: branch.id }}
        labels={LABELS}
        version={`${view.baseCount}:${view.branchCount}`}
        counts={view.counts}
        window={ROWS_PER_WINDOW}
        firstDivergence={firstDivergence}
        initial={{ filter, selected, rows }}
      />
      <div className="mt-6 space-y-6">
        <Card>
          <h2 className="mb-2 text-base font-semibold text-slate-900">Final output (run A → run B)</h2>
          <FinalOutputDiff
            base={finalText(view.baseFinalOutput)}
            branch={finalText(view.branchFinalOutput)}
            sides={{ original: "Run A", modified: "Run B" }}
          />
        </Card>
        <MetricsTable metrics={view.metrics} labels={LABELS} />
      </div>
    </>
  );
}
