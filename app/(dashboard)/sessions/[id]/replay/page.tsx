import type { Metadata } from "next";
import { editTargets } from "@/components/replays/edit-values";
import { StartReplayForm } from "@/components/replays/StartReplayForm";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { toSessionEvent } from "@/lib/db";
import { orNotFound, pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { counterfactualFormOptions } from "@/lib/server/checks/counterfactual";
import { replayPresets } from "@/lib/server/replays/replay-presets";
import { getSession } from "@/lib/server/sessions/sessions";
import { sessionCrumbs } from "@/components/sessions/crumbs";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Replay a session" };

type Props = { params: Promise<{ id: string }> };

export default async function StartReplayPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const session = await orNotFound(getSession(principal, { sessionId: id }, prisma));
  if (!can(principal, "replays.run")) {
    return (
      <>
        <PageHeader
          breadcrumbs={[{ href: "/sessions", label: "Sessions" }]}
          title="Replay this session"
          subtitle={`${session.agent.name} · ${session.eventCount} recorded steps.`}
        />
        <Notice tone="warning" testId="role-needed">
          Starting a replay needs the analyst role; you are signed in as a {principal.role}. Ask an admin to change your
          role, or open the replays others have made.
        </Notice>
      </>
    );
  }
  // The presets adapted to this session's adapter, then the saved versions, each with its caveats for this session.
  const [choices, counterfactual] = await Promise.all([
    replayPresets(principal, { sessionId: session.id }, prisma),
    counterfactualFormOptions(principal, { sessionId: session.id }, prisma),
  ]);
  return (
    <>
      <PageHeader
        breadcrumbs={sessionCrumbs(session)}
        title="Replay this session"
        subtitle={`${session.agent.name} · ${session.eventCount} recorded steps. The branch is compared with this run when it stops.`}
      />
      <StartReplayForm
        sessionId={session.id}
        choices={choices}
        targets={editTargets(session.events.map(toSessionEvent))}
        counterfactual={counterfactual}
      />
    </>
  );
}
