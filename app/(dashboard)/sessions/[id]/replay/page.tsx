import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { editTargets } from "@/components/replays/edit-values";
import { FORK_LIVE_CHOICE, StartReplayForm, type PolicyChoice } from "@/components/replays/StartReplayForm";
import { PageHeader } from "@/components/ui/PageHeader";
import { db, getSession, toSessionEvent } from "@/lib/db";
import { CheckDefinition, RECOMMENDED_RCA_POLICY, toolLevelPreset, type Policy } from "@/lib/replay";
import { replayPolicyWarnings } from "@/lib/replays/service";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Replay a session" };

type Props = { params: Promise<{ id: string }> };

/** The recommended default with the model forked live at the first changed input. */
const FORK_LIVE: Policy = { ...RECOMMENDED_RCA_POLICY, model: "recorded-until-divergence" };

const RECORDED_ONLY: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

export default async function StartReplayPage({ params }: Props) {
  const { id } = await params;
  const prisma = await db();
  const session = await getSession(prisma, id);
  if (!session) notFound();
  const versions = await prisma.policyVersion.findMany({
    where: { policy: { OR: [{ agentId: null }, { agentId: session.agentId }] } },
    orderBy: [{ policy: { name: "asc" } }, { version: "desc" }],
    select: { id: true, version: true, hash: true, document: true, policy: { select: { name: true } } },
    take: 200,
  });
  // The seeds' caveats for this session's adapter and capabilities, per choice, shown before anything runs.
  const [modelEndpoints, savedChecks] = await Promise.all([
    prisma.modelEndpoint.findMany({ select: { id: true, name: true, model: true }, orderBy: { createdAt: "asc" } }),
    prisma.check.findMany({ select: { id: true, name: true, definition: true }, orderBy: { name: "asc" }, take: 200 }),
  ]);
  const warnings = await replayPolicyWarnings(prisma, session.id, [
    RECOMMENDED_RCA_POLICY,
    RECORDED_ONLY,
    FORK_LIVE,
    ...versions.map((v) => v.document),
  ]);
  const choices: PolicyChoice[] = [
    {
      value: "preset:recommended",
      label: "Recommended RCA default (recorded model, history; pause for a fixture on a miss)",
      policy: RECOMMENDED_RCA_POLICY,
      warnings: warnings[0] ?? [],
    },
    {
      value: "preset:recorded",
      label: "Recorded only (history; stop on a miss)",
      policy: RECORDED_ONLY,
      warnings: warnings[1] ?? [],
    },
    // Offered only with a model endpoint to run on; the form says why when there is none.
    ...(modelEndpoints.length > 0
      ? [
          {
            value: FORK_LIVE_CHOICE,
            label: "Fork-live (recorded model until an input changes, then live; pause for a fixture on a miss)",
            policy: FORK_LIVE,
            warnings: warnings[2] ?? [],
          },
        ]
      : []),
    ...versions.map((v, k) => ({
      value: `version:${v.id}`,
      label: `${v.policy.name} v${v.version} (${v.hash.slice(0, 10)})`,
      versionId: v.id,
      ...(typeof (v.document as { model?: unknown }).model === "string"
        ? { model: (v.document as { model: string }).model }
        : {}),
      warnings: warnings[k + 3] ?? [],
    })),
  ];
  const label = session.title ?? session.externalId ?? session.id;
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href={`/sessions/${session.id}`} className="text-slate-500 hover:text-slate-900">
          ← {label}
        </Link>
      </div>
      <PageHeader
        title="Replay this session"
        subtitle={`${session.agent.name} · ${session.eventCount} recorded steps. The branch is compared with this run when it stops.`}
      />
      <StartReplayForm
        sessionId={session.id}
        choices={choices}
        targets={editTargets(session.events.map(toSessionEvent))}
        counterfactual={{
          modelEndpoints,
          savedChecks: savedChecks.map((c) => ({
            id: c.id,
            name: c.name,
            kind: CheckDefinition.safeParse(c.definition).data?.kind ?? "check",
          })),
        }}
      />
    </>
  );
}
