import type { Metadata } from "next";
import Link from "next/link";
import { BlameForm } from "@/components/investigations/BlameForm";
import { InvestigationList } from "@/components/investigations/InvestigationList";
import { StaleForm } from "@/components/investigations/StaleForm";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { blameProbeBound } from "@/lib/replay";
import { counterfactualFormOptions } from "@/lib/server/checks/counterfactual";
import { blameLiveBudget } from "@/lib/server/investigations/investigations";
import { listSessionInvestigations } from "@/lib/server/investigations/investigation-reads";
import { getSessionHead } from "@/lib/server/sessions/sessions";
import { sessionCrumbs } from "@/components/sessions/crumbs";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Investigate a session" };

type Props = { params: Promise<{ id: string }> };

export default async function InvestigatePage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const session = await orNotFound(getSessionHead(principal, { sessionId: id }, prisma));
  const [{ savedChecks, modelEndpoints }, past] = await Promise.all([
    counterfactualFormOptions(principal, { sessionId: id }, prisma),
    listSessionInvestigations(principal, { sessionId: id }, prisma),
  ]);
  const modelSteps = session.modelCallCount;
  return (
    <>
      <PageHeader
        breadcrumbs={sessionCrumbs(session)}
        title="Investigate"
        subtitle={
          <>
            Searches that run many replays of this session to answer one question each. To find which of a branch&apos;s
            edits are needed, open the branch and choose &ldquo;Find the smallest fixing change&rdquo;.{" "}
            <Link href={`/sessions/${session.id}`} className="text-indigo-700 underline">
              Back to the session
            </Link>
          </>
        }
      />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,24rem)]">
        {modelSteps === 0 ? (
          <p className="text-sm text-slate-600">This session has no model step, so there is no decision to blame.</p>
        ) : (
          <BlameForm
            sessionId={session.id}
            checks={savedChecks}
            modelSteps={modelSteps}
            probeBound={blameProbeBound(modelSteps)}
            liveCallsPerTrial={blameLiveBudget(modelSteps)}
            modelEndpoints={modelEndpoints}
          />
        )}
        <div className="space-y-6">
          <StaleForm sessionId={session.id} />
          <InvestigationList investigations={past} />
        </div>
      </div>
    </>
  );
}
