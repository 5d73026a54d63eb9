import type { Metadata } from "next";
import Link from "next/link";
import { ExperimentList } from "@/components/experiments/ExperimentList";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listExperiments } from "@/lib/server/experiments/experiments";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiments" };

const NEW_LINK = "rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500";

export default async function ExperimentsPage() {
  const { principal, prisma } = await pageContext();
  const experiments = await listExperiments(principal, {}, prisma);
  return (
    <>
      <PageHeader
        title="Experiments"
        subtitle="One policy version run over a cohort: every recorded session of an agent version, newest experiment first."
        actions={
          experiments.length > 0 ? (
            <Link href="/experiments/new" className={NEW_LINK}>
              New experiment
            </Link>
          ) : null
        }
      />
      {experiments.length === 0 ? (
        <EmptyState
          title="No experiments yet"
          action={
            <Link href="/experiments/new" className={NEW_LINK}>
              New experiment
            </Link>
          }
        >
          Save a policy on the Policies page, then start an experiment: choose the policy version and an agent version,
          and Branchpoint replays every recorded session of that version under it and counts how many reproduce exactly.
          A history rule with the cohort_version scope works only here: it answers from the experiment&apos;s own
          sessions.
        </EmptyState>
      ) : (
        <ExperimentList experiments={experiments} />
      )}
    </>
  );
}
