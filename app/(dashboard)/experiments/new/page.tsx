import type { Metadata } from "next";
import { NewExperimentForm } from "@/components/experiments/NewExperimentForm";
import { NoSessionsYet } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { experimentChoices } from "@/lib/server/experiments/experiments";
import { counterfactualFormOptions } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New experiment" };

export default async function NewExperimentPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const asked = (await searchParams).dataset;
  const { principal, prisma } = await pageContext();
  const [choices, { savedChecks }] = await Promise.all([
    experimentChoices(principal, {}, prisma),
    counterfactualFormOptions(principal, {}, prisma),
  ]);
  return (
    <>
      <PageHeader
        breadcrumbs={[{ href: "/experiments", label: "Experiments" }]}
        title="New experiment"
        subtitle="Replay the recorded sessions of one agent version, all or some, or a saved dataset, under a preset or a saved policy version, optionally with one edit across them."
      />
      {choices.agentVersions.length === 0 ? (
        <NoSessionsYet>A cohort is the recorded sessions of one agent version; import some first.</NoSessionsYet>
      ) : (
        <NewExperimentForm
          {...choices}
          savedChecks={savedChecks}
          {...(typeof asked === "string" ? { initialDatasetId: asked } : {})}
        />
      )}
    </>
  );
}
