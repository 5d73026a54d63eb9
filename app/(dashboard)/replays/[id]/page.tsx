import type { Metadata } from "next";
import { can } from "@/lib/server/authz";
import Link from "next/link";
import { ForkNotice, TrialSetLink, VerdictList } from "@/components/counterfactual/CounterfactualPanel";
import { MinimizeButton } from "@/components/investigations/MinimizeButton";
import { ProbeVariance } from "@/components/counterfactual/ProbeVariance";
import { StaleUsedNotice } from "@/components/investigations/StaleUsedNotice";
import { staleRecordingsUsed } from "@/lib/server/investigations";
import { CoveragePanel } from "@/components/replays/CoveragePanel";
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
import { getReplayCoverage } from "@/lib/server/coverage";
import { getReplay, isTerminal } from "@/lib/server/replays";
import { formatDateTime } from "@/lib/format";
import { buttonClass } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { replayCounterfactual } from "@/lib/server/counterfactual";
import { evidenceDrafts } from "@/lib/server/reports";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export const metadata: Metadata = { title: "Replay" };

export default async function ReplayPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const view = await orNotFound(getReplay(principal, { replayId: id }, prisma));
  const counterfactual = await replayCounterfactual(principal, { replayId: id }, prisma);
  const { replay, session } = view;
  const label = session.title ?? session.externalId ?? session.id;
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
              {view.steps.length} of {view.base.length} base steps
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
            {replay.status !== "running" && replay.status !== "queued" ? (
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
      {replay.status === "running" || replay.status === "queued" ? (
        <ReplayProgress
          replayId={replay.id}
          status={replay.status}
          baseSteps={view.base.length}
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
          </strong>{" "}
          ({replay.error.code}): {replay.error.message}
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
        steps={view.steps}
        baseSteps={view.base.map((e) => ({ seq: e.seq, kind: e.kind, name: e.name }))}
      />
      {view.pending &&
      can(principal, "replays.run") &&
      (replay.status === "paused" || replay.status === "awaiting_approval") ? (
        <PendingCallPanel replayId={replay.id} pending={view.pending} />
      ) : null}
      <div className="grid gap-6 xl:grid-cols-[1fr_380px]">
        <div>
          <h2 className="mb-2 text-base font-semibold text-slate-900">Branch steps</h2>
          {view.steps.length === 0 ? (
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
            <ReplayStepList steps={view.steps} />
          )}
        </div>
        <EvidencePanel view={view} />
      </div>
      <CoveragePanel
        coverage={await getReplayCoverage(principal, { replayId: id }, prisma)}
        csvHref={`/api/replays/${encodeURIComponent(id)}/coverage.csv`}
      />
      {can(principal, "reports.write") && (isTerminal(replay.status) || replay.status === "paused") ? (
        <div className="mt-3">
          <AddToReport
            source={{ coverage: { replayId: replay.id } }}
            drafts={await evidenceDrafts(principal, {}, prisma)}
            what="this replay's coverage"
          />
        </div>
      ) : null}
    </>
  );
}
