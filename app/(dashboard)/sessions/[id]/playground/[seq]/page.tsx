import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Playground } from "@/components/playground/Playground";
import { sessionCrumbs } from "@/components/sessions/crumbs";
import { EmptyState } from "@/components/ui/EmptyState";
import { PageHeader } from "@/components/ui/PageHeader";
import { AppError } from "@/lib/errors";
import { orNotFound, pageContext } from "@/lib/http/page";
import { playgroundStep } from "@/lib/server/playground/playground";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Playground" };

type Props = { params: Promise<{ id: string; seq: string }> };

/** One recorded model call of a session, to send again as recorded or edited to a model endpoint. */
export default async function PlaygroundPage({ params }: Props) {
  const { id, seq } = await params;
  if (!/^\d{1,9}$/.test(seq)) notFound();
  const { principal, prisma } = await pageContext();
  const step = await orNotFound(
    playgroundStep(principal, { sessionId: id, step: Number(seq) }, prisma).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "invalid_input") return error;
      throw error;
    }),
  );
  if (step instanceof AppError)
    return (
      <EmptyState title="Only a model call can be opened in the playground">
        {step.message}{" "}
        <Link href={`/sessions/${id}?view=timeline&step=${seq}`} className="text-indigo-700 underline">
          Back to the step
        </Link>
      </EmptyState>
    );
  return (
    <>
      <PageHeader
        breadcrumbs={sessionCrumbs(step.session)}
        title={`Playground: step #${step.step}`}
        subtitle={
          <>
            The model call <code className="font-mono">{step.name}</code> as the session recorded it. Edit what it is
            sent, choose an endpoint and run it: each answer is shown beside the recorded one.{" "}
            <Link href={`/sessions/${id}?view=timeline&step=${step.step}`} className="text-indigo-700 underline">
              Back to the step
            </Link>
          </>
        }
      />
      <Playground step={step} />
    </>
  );
}
