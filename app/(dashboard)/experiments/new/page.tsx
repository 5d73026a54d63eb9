import type { Metadata } from "next";
import Link from "next/link";
import { NewExperimentForm } from "@/components/experiments/NewExperimentForm";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { experimentChoices } from "@/lib/server/experiments";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New experiment" };

export default async function NewExperimentPage() {
  const { principal, prisma } = await pageContext();
  const { policyVersions, agentVersions } = await experimentChoices(principal, {}, prisma);
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/experiments" className="text-slate-500 hover:text-slate-900">
          ← Experiments
        </Link>
      </div>
      <PageHeader
        title="New experiment"
        subtitle="Replay every recorded session of one agent version under one policy version."
      />
      {policyVersions.length === 0 ? (
        <EmptyState
          title="No saved policies yet"
          action={
            <Link
              href="/policies"
              className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500"
            >
              Create a policy
            </Link>
          }
        >
          An experiment runs a saved policy version, so its hash is evidence. Create a policy first (the recorded-only
          preset reproduces every session).
        </EmptyState>
      ) : agentVersions.length === 0 ? (
        <EmptyState
          title="No sessions yet"
          action={
            <Link
              href="/import"
              className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500"
            >
              Import sessions
            </Link>
          }
        >
          A cohort is the recorded sessions of one agent version; import some first.
        </EmptyState>
      ) : (
        <NewExperimentForm policyVersions={policyVersions} agentVersions={agentVersions} />
      )}
    </>
  );
}
