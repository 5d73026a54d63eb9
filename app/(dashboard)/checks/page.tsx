import type { Metadata } from "next";
import { CheckList } from "@/components/checks/CheckList";
import { NewCheckForm } from "@/components/checks/NewCheckForm";
import { PageHeader } from "@/components/ui/PageHeader";
import { pageContext } from "@/lib/http/page";
import { listChecks } from "@/lib/server/checks/counterfactual";

export const metadata: Metadata = { title: "Outcome checks" };
export const dynamic = "force-dynamic";

export default async function ChecksPage() {
  const { principal, prisma } = await pageContext();
  const checks = await listChecks(principal, {}, prisma);
  return (
    <>
      <PageHeader
        title="Outcome checks"
        subtitle="Whether a run ended the way it should: its answer, the tools it called, its length or cost, or a model's judgement against a rubric. Replays and experiments judge the base run and the branch by the checks you choose; open a check to attach it to an agent, and every session imported after is judged."
      />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
        <CheckList checks={checks} />
        <NewCheckForm />
      </div>
    </>
  );
}
