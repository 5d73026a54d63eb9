import type { Metadata } from "next";
import { CancelInvestigationButton } from "@/components/investigations/CancelInvestigationButton";
import { AddToReport } from "@/components/reports/AddToReport";
import { InvestigationView } from "@/components/investigations/InvestigationView";
import { RefreshWhileRunning } from "@/components/investigations/RefreshWhileRunning";
import { StatusBadge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getInvestigation } from "@/lib/server/investigations/investigation-reads";
import { getSessionOutline } from "@/lib/server/sessions/sessions";
import { can } from "@/lib/server/authz";
import { evidenceDrafts } from "@/lib/server/reports/reports";
import { Card } from "@/components/ui/Card";
import { sessionCrumbs } from "@/components/sessions/crumbs";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Investigation" };

type Props = { params: Promise<{ id: string }> };

/** What a step did, in a few words: a model step by the tools it called (or "replied"), others by name. */
function stepName(e: { kind: string; name: string; output: unknown }): string {
  if (e.kind !== "model_call") return e.name;
  const calls = (e.output as { toolCalls?: { name: string }[] } | null)?.toolCalls ?? [];
  return calls.length > 0 ? `called ${calls.map((c) => c.name).join(", ")}` : "replied";
}

/** Each kind of search: the page's title, and its name where it is added to a report. */
const KIND_WORDS = {
  blame: { title: "Which step decided the failure", what: "this blame search" },
  stale: { title: "Are the recordings stale?", what: "this stale check" },
  minimize: { title: "The smallest fixing change", what: "this minimal counterfactual" },
} as const;

export default async function InvestigationPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const investigation = await orNotFound(getInvestigation(principal, { investigationId: id }, prisma));
  const session = await getSessionOutline(principal, { sessionId: investigation.sessionId }, prisma);
  const words =
    KIND_WORDS[investigation.kind === "blame" || investigation.kind === "stale" ? investigation.kind : "minimize"];
  const running = investigation.status === "queued" || investigation.status === "running";
  return (
    <>
      <RefreshWhileRunning running={running} />
      <PageHeader
        breadcrumbs={[...sessionCrumbs(session), { href: `/sessions/${session.id}/investigate`, label: "Investigate" }]}
        title={words.title}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <StatusBadge status={investigation.status} />
            <span data-testid="investigation-progress">
              {investigation.progress.probes} of at most {investigation.progress.of} probes
            </span>
            <span>
              · started by {investigation.createdBy ?? "unknown"}{" "}
              {investigation.createdAt.slice(0, 16).replace("T", " ")} UTC
            </span>
          </span>
        }
        actions={running && !investigation.cancelRequested ? <CancelInvestigationButton investigationId={id} /> : null}
      />
      {investigation.status === "completed" && can(principal, "reports.write") ? (
        <Card as="div" padding="sm" className="mb-6">
          <AddToReport
            source={{ investigationId: investigation.id }}
            drafts={await evidenceDrafts(principal, { sessionId: investigation.sessionId }, prisma)}
            what={words.what}
          />
        </Card>
      ) : null}
      <InvestigationView
        investigation={investigation}
        baseSteps={session.events.map((e) => ({ seq: e.seq, name: stepName(e), kind: e.kind }))}
      />
    </>
  );
}
