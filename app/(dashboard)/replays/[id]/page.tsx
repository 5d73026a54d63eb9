import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import Link from "next/link";
import { ForkNotice, TrialSetLink, VerdictList } from "@/components/counterfactual/CounterfactualPanel";
import { MinimizeButton } from "@/components/investigations/MinimizeButton";
import { ProbeVariance } from "@/components/counterfactual/ProbeVariance";
import { StaleUsedNotice } from "@/components/investigations/StaleUsedNotice";
import { staleRecordingsUsed } from "@/lib/server/investigations/investigation-reads";
import { ReplayCoverage } from "@/components/replays/ReplayCoverage";
import { EvidencePanel } from "@/components/replays/EvidencePanel";
import { PendingCallPanel } from "@/components/replays/PendingCallPanel";
import { ReplayProgress } from "@/components/replays/ReplayProgress";
import { ReplayStepList } from "@/components/replays/ReplayStepList";
import { AddToReport } from "@/components/reports/AddToReport";
import { CreateReportButton } from "@/components/reports/CreateReportButton";
import { StatusBadge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { isTerminal } from "@/lib/server/replays/replay-reads";
import { getReplayPage, listReplaySteps } from "@/lib/server/replays/replay-pages";
import { formatDateTime } from "@/lib/format";
import { buttonClass } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { replayCounterfactual } from "@/lib/server/checks/counterfactual";
import { evidenceDrafts } from "@/lib/server/reports/reports";
import { runFailureWords } from "@/lib/run-failures";
import { sessionName } from "@/components/sessions/crumbs";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ step?: string }> };

/** Steps per window: the first screen and a little more. */
const STEPS_PER_WINDOW = 50;

export const metadata: Metadata = { title: "Replay" };

export default async function ReplayPage({ params, searchParams }: Props) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const { principal, prisma } = await pageContext();
  // The header, the panels and one window of steps: the others load as they scroll into view, a step's inputs and
  // outputs when it is opened.
  const view = await orNotFound(getReplayPage(principal, { replayId: id }, prisma));
  const asked = /^\d{1,9}$/.test(query.step ?? "") ? Number(query.step) : null;
  const openSeq = asked !== null && asked < view.stepCount ? asked : null;
  const cursor = openSeq === null ? 0 : Math.floor(openSeq / STEPS_PER_WINDOW) * STEPS_PER_WINDOW;
  const [counterfactual, firstSteps] = await Promise.all([
    replayCounterfactual(principal, { replayId: id }, prisma),
    listReplaySteps(principal, { replayId: id, cursor, limit: STEPS_PER_WINDOW }, prisma),
  ]);
  const { replay, session } = view;
  const label = sessionName(session);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/replays", label: "Replays" }]}
        title={<>Branch of “{label}”</>}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={replay.status} />
            <span>
              {session.agentName} · started {formatDateTime(replay.createdAt)} by {replay.createdBy ?? "unknown"} ·{" "}
              {view.stepCount} of {view.baseCount} base steps
            </span>
          </span>
        }
        actions={
          <>
            <Link href={`/sessions/${session.id}`} className={buttonClass({ variant: "secondary" })}>
              Open base run
            </Link>
            {can(principal, "investigations.run") ? (
              <Link
                href={`/sessions/${session.id}/investigate`}
                className={buttonClass({ variant: "secondary" })}
                title="Which step decided the failure, and are its recordings stale?"
              >
                Investigate the session
              </Link>
            ) : null}
            {replay.status !== "running" && replay.status !== "queued" && replay.status !== "waiting_for_agent" ? (
              <Link href={`/replays/${replay.id}/compare`} className={buttonClass()}>
                Compare with base
              </Link>
            ) : null}
            {can(principal, "replays.run") && replay.edits.length >= 2 && isTerminal(replay.status) ? (
              <MinimizeButton replayId={replay.id} />
            ) : null}
            {can(principal, "reports.write") ? (
              <CreateReportButton replayId={replay.id} finished={isTerminal(replay.status)} />
            ) : null}
          </>
        }
      />
      {replay.status === "running" || replay.status === "queued" || replay.status === "waiting_for_agent" ? (
        <ReplayProgress
          replayId={replay.id}
          driver={replay.driver}
          stepCount={replay.stepCount}
          status={replay.status}
          baseSteps={view.baseCount}
          progress={replay.progress}
          cancelRequested={replay.cancelRequested}
        />
      ) : null}
      {replay.error ? (
        <Notice tone="error" className="mb-6">
          <strong>
            {replay.status === "failed"
              ? "The branch failed"
              : replay.status === "cancelled"
                ? "The branch was cancelled"
                : "The branch stopped"}
          </strong>
          : <span data-code={replay.error.code}>{runFailureWords(replay.error.code)}</span> {replay.error.message}
        </Notice>
      ) : null}
      <StaleUsedNotice stale={await staleRecordingsUsed(principal, { replayId: id }, prisma)} />
      <TrialSetLink trialSet={counterfactual?.trialSet ?? null} />
      {replay.status !== "running" ? (
        <ForkNotice fork={counterfactual?.fork ?? null} modelPolicy={replay.policySnapshot.model} />
      ) : null}
      <VerdictList verdicts={counterfactual?.verdicts ?? []} />
      <ProbeVariance
        probes={view.evidence.probes ?? []}
        steps={view.probeSteps}
        baseLength={view.baseCount}
        baseSteps={view.probeBaseSteps}
      />
      {view.pending &&
      can(principal, "replays.run") &&
      (replay.status === "paused" || replay.status === "awaiting_approval") ? (
        <PendingCallPanel replayId={replay.id} pending={view.pending} />
      ) : null}
      <div className="grid gap-6 xl:grid-cols-[1fr_380px]">
        <div className="min-w-0">
          <h2 className="mb-2 text-base font-semibold text-slate-900">Branch steps</h2>
          {view.stepCount === 0 ? (
            <EmptyState
              title={
                replay.status === "running" || replay.status === "queued" ? "No steps yet" : "The branch has no steps"
              }
            >
              {replay.status === "running" || replay.status === "queued"
                ? "The branch is running; its steps appear when it stops or pauses."
                : "It stopped before its first step; the reason is shown above."}
            </EmptyState>
          ) : (
            <ReplayStepList
              replayId={replay.id}
              version={view.version}
              count={view.stepCount}
              window={STEPS_PER_WINDOW}
              initial={{ cursor: firstSteps.cursor, steps: firstSteps.steps }}
              openSeq={openSeq}
            />
          )}
        </div>
        <EvidencePanel view={view} />
      </div>
      {/* Coverage reads every tool call of both runs: it loads once the first screen is shown. */}
      <ReplayCoverage replayId={id} version={view.version} />
      {can(principal, "reports.write") && (isTerminal(replay.status) || replay.status === "paused") ? (
        <div className="mt-3">
          <AddToReport
            source={{ coverage: { replayId: replay.id } }}
            drafts={await evidenceDrafts(principal, { sessionId: session.id }, prisma)}
            what="this replay's coverage"
          />
        </div>
      ) : null}
    </>
  );
}
