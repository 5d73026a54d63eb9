import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { TrialsProgress } from "@/components/counterfactual/TrialsProgress";
import { TrialsView } from "@/components/counterfactual/TrialsView";
import { PageHeader } from "@/components/ui/PageHeader";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/http/errors";
import { trialSetView } from "@/lib/server/counterfactual";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Repeated trials" };

type Props = { params: Promise<{ id: string }> };

export default async function TrialsPage({ params }: Props) {
  const { id } = await params;
  const set = await trialSetView(await db(), id).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  });
  if (!set) notFound();
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
