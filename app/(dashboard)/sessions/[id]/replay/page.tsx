import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { editTargets } from "@/components/replays/edit-values";
import { StartReplayForm, type PolicyChoice } from "@/components/replays/StartReplayForm";
import { PageHeader } from "@/components/ui/PageHeader";
import { db, getSession, toSessionEvent } from "@/lib/db";
import { RECOMMENDED_RCA_POLICY, toolLevelPreset, type Policy } from "@/lib/replay";
import { replayPolicyWarnings } from "@/lib/replays/service";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Replay a session" };

type Props = { params: Promise<{ id: string }> };

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
  const warnings = await replayPolicyWarnings(prisma, session.id, [
    RECOMMENDED_RCA_POLICY,
    RECORDED_ONLY,
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
    ...versions.map((v, k) => ({
      value: `version:${v.id}`,
      label: `${v.policy.name} v${v.version} (${v.hash.slice(0, 10)})`,
      versionId: v.id,
      warnings: warnings[k + 2] ?? [],
    })),
  ];
  const label = session.title ?? session.externalId ?? session.id;
  return (
    <>
      <PageHeader
        breadcrumbs={[
          { href: "/sessions", label: "Sessions" },
          { href: `/sessions/${session.id}`, label },
        ]}
        title="Replay this session"
        subtitle={`${session.agent.name} · ${session.eventCount} recorded steps. The branch is compared with this run when it stops.`}
      />
      <StartReplayForm
        sessionId={session.id}
        choices={choices}
        targets={editTargets(session.events.map(toSessionEvent))}
      />
    </>
  );
}
