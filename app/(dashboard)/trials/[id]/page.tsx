import type { Metadata } from "next";
import Link from "next/link";
import { TrialsProgress } from "@/components/counterfactual/TrialsProgress";
import { TrialsView } from "@/components/counterfactual/TrialsView";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { trialSetView } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Repeated trials" };

type Props = { params: Promise<{ id: string }> };

export default async function TrialsPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const set = await orNotFound(trialSetView(principal, { trialSetId: id }, prisma));
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href={`/sessions/${set.sessionId}`} className="text-slate-500 hover:text-slate-900">
          ← Base run
        </Link>
      </div>
      <PageHeader
        title="Repeated trials"
        subtitle={`${set.n} runs of the same branch with a live model · ${set.finished} finished`}
      />
      <TrialsProgress finished={set.finished} n={set.n} />
      <TrialsView set={set} />
    </>
  );
}
