import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import Link from "next/link";
import { CompareView } from "@/components/compare/CompareView";
import { FinalOutputDiff } from "@/components/compare/FinalOutputDiff";
import { MetricsTable } from "@/components/compare/MetricsTable";
import { finalText, parseCompareState } from "@/lib/session-view/compare-rows";
import { ForkNotice, TrialSetLink, VerdictList } from "@/components/counterfactual/CounterfactualPanel";
import { EvidencePanel } from "@/components/replays/EvidencePanel";
import { CreateReportButton } from "@/components/reports/CreateReportButton";
import { Badge, StatusBadge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { replayCounterfactual } from "@/lib/server/checks/counterfactual";
import { isTerminal } from "@/lib/server/replays/replay-reads";
import { findComparisonRow, getComparisonPage, listComparisonRows } from "@/lib/server/replays/comparison-pages";
import { buttonClass } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { Card } from "@/components/ui/Card";
import { sessionName } from "@/components/sessions/crumbs";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare base and branch" };

/** Rows per window: the first screen and a little more. */
const ROWS_PER_WINDOW = 100;

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ pair?: string; filter?: string }> };

export default async function ComparePage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  // The counts, the first divergence and one window of rows: the others load as they scroll into view, a pair's
  // full events when it is selected.
  const { principal, prisma } = await pageContext();
  const view = await orNotFound(getComparisonPage(principal, { replayId: id }, prisma));
  const { filter, pair } = parseCompareState(query);
  const [counterfactual, firstDivergence, selectedInFilter, selectedAnywhere] = await Promise.all([
    replayCounterfactual(principal, { replayId: id }, prisma),
    view.firstDivergence
      ? findComparisonRow(principal, { replayId: id, filter: "all", pair: view.firstDivergence.id }, prisma)
      : null,
    pair ? findComparisonRow(principal, { replayId: id, filter, pair }, prisma) : null,
    pair && filter !== "all" ? findComparisonRow(principal, { replayId: id, filter: "all", pair }, prisma) : null,
  ]);
  // A linked pair the filter does not show is still opened beside the list; with none linked, the first divergence
  // is (the list stays at its top: the jump button and j / k move it).
  const selected =
    selectedInFilter ??
    (selectedAnywhere ? { position: -1, row: selectedAnywhere.row } : null) ??
    (!pair && firstDivergence ? { position: -1, row: firstDivergence.row } : null);
  const cursor = selectedInFilter ? Math.floor(selectedInFilter.position / ROWS_PER_WINDOW) * ROWS_PER_WINDOW : 0;
  const rows = await listComparisonRows(principal, { replayId: id, filter, cursor, limit: ROWS_PER_WINDOW }, prisma);
  const comparison = { firstDivergence: view.firstDivergence, metrics: view.metrics };
  const { replay, session } = view;
  const label = sessionName(session);
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/replays", label: "Replays" },
          { href: `/replays/${replay.id}`, label: "Branch" },
        ]}
        title={<>Base vs branch: “{label}”</>}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={replay.status} />
            {replay.comparability ? (
              <Badge tone={replay.comparability === "exact" ? "good" : "info"}>
                {replay.comparability.replaceAll("_", " ")}
              </Badge>
            ) : null}
            <span>
              {view.baseCount} base steps · {view.branchCount} branch steps
            </span>
          </span>
        }
        actions={
          <>
            <Link href={`/sessions/${session.id}`} className={buttonClass({ variant: "secondary" })}>
              Open base in full
            </Link>
            <Link href={`/replays/${replay.id}`} className={buttonClass({ variant: "secondary" })}>
              Open branch in full
            </Link>
            {can(principal, "reports.write") ? (
              <CreateReportButton replayId={replay.id} finished={isTerminal(replay.status)} />
            ) : null}
          </>
        }
      />
      <TrialSetLink trialSet={counterfactual?.trialSet ?? null} />
      <ForkNotice fork={counterfactual?.fork ?? null} modelPolicy={replay.policySnapshot.model} />
      <VerdictList verdicts={counterfactual?.verdicts ?? []} />
      {comparison.firstDivergence ? (
        <Notice tone="warning" className="mb-4" testId="first-divergence">
          First divergence at pair {comparison.firstDivergence.pairIndex} (base step{" "}
          {comparison.firstDivergence.baseSeq ?? "—"}, branch step {comparison.firstDivergence.branchSeq ?? "—"}):{" "}
          {comparison.firstDivergence.summary}
        </Notice>
      ) : comparison.metrics.not_reached > 0 ? (
        <Notice tone="info" className="mb-4" testId="first-divergence">
          Every step the branch ran equals the base run; it ended ({replay.status.replaceAll("_", " ")}) before the last{" "}
          {comparison.metrics.not_reached} base {comparison.metrics.not_reached === 1 ? "step" : "steps"}, shown as not
          reached.
        </Notice>
      ) : (
        <Notice tone="success" className="mb-4" testId="first-divergence">
          The branch reproduces the base run: every aligned step is equal.
        </Notice>
      )}
      <CompareView
        source={{ kind: "replay", replayId: replay.id }}
        version={`${replay.status}:${view.branchCount}:${replay.finishedAt?.toISOString() ?? ""}`}
        counts={view.counts}
        window={ROWS_PER_WINDOW}
        firstDivergence={firstDivergence}
        initial={{ filter, selected, rows }}
      />
      <div className="mt-6 grid gap-6 xl:grid-cols-[minmax(0,1fr)_380px]">
        <div className="space-y-6">
          <Card>
            <h2 className="mb-2 text-base font-semibold text-slate-900">Final output</h2>
            <FinalOutputDiff base={finalText(view.baseFinalOutput)} branch={finalText(view.branchFinalOutput)} />
          </Card>
          <MetricsTable metrics={comparison.metrics} />
        </div>
        <EvidencePanel view={view} />
      </div>
    </>
  );
}
