import type { Metadata } from "next";
import Link from "next/link";
import { TrialsProgress } from "@/components/counterfactual/TrialsProgress";
import { TrialsView } from "@/components/counterfactual/TrialsView";
import { RawValue } from "@/components/policies/EnumWords";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { MODEL_WORDS } from "@/lib/policies/labels";
import { Edits, ModelPolicy } from "@/lib/replay";
import { editWords } from "@/lib/reports/evidence";
import { trialSetView } from "@/lib/server/checks/counterfactual";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Repeated trials" };

type Props = { params: Promise<{ id: string }> };

export default async function TrialsPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const set = await orNotFound(trialSetView(principal, { trialSetId: id }, prisma));
  const edits = Edits.safeParse(set.edits).data ?? [];
  const model = ModelPolicy.safeParse((set.policy as { model?: unknown } | null)?.model).data;
  const sessionName = set.sessionTitle ?? `Session ${set.sessionId}`;
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/sessions", label: "Sessions" },
          { href: `/sessions/${set.sessionId}`, label: sessionName },
        ]}
        title="Repeated trials"
        subtitle={`${set.n} runs of the same branch with a live model · ${set.finished} finished`}
      />
      <dl
        className="mb-4 grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm text-slate-700"
        data-testid="trials-what"
      >
        <dt className="text-slate-500">Session</dt>
        <dd className="truncate">
          <Link href={`/sessions/${set.sessionId}`} className="text-indigo-700 hover:underline">
            {sessionName}
          </Link>
        </dd>
        <dt className="text-slate-500">{edits.length === 1 ? "Edit" : "Edits"}</dt>
        <dd>{edits.length === 0 ? "none: the recorded run, re-run live" : edits.map(editWords).join("; ")}</dd>
        <dt className="text-slate-500">Policy</dt>
        <dd>
          {set.savedPolicy ? (
            <Link href={`/policies/${set.savedPolicy.id}`} className="text-indigo-700 hover:underline">
              {set.savedPolicy.name} v{set.savedPolicy.version}
            </Link>
          ) : (
            "a preset, as it was run"
          )}
          {model ? ` · model: ${MODEL_WORDS[model].label} ` : " "}
          {model ? <RawValue value={model} /> : null}{" "}
          <span className="font-mono text-xs text-slate-500" title={set.policyHash}>
            {set.policyHash.slice(0, 10)}
          </span>
        </dd>
      </dl>
      <TrialsProgress finished={set.finished} n={set.n} />
      <TrialsView set={set} />
    </>
  );
}
