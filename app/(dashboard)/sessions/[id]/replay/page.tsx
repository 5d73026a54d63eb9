import type { Metadata } from "next";
import { editTargets } from "@/components/replays/edit-values";
import { FORK_LIVE_CHOICE, StartReplayForm, type PolicyChoice } from "@/components/replays/StartReplayForm";
import { Notice } from "@/components/ui/Notice";
import { PageHeader } from "@/components/ui/PageHeader";
import { toSessionEvent } from "@/lib/db";
import { orNotFound, pageContext } from "@/lib/http/page";
import { RECOMMENDED_RCA_POLICY, toolLevelPreset, type Policy } from "@/lib/replay";
import { can } from "@/lib/server/authz";
import { counterfactualFormOptions } from "@/lib/server/checks/counterfactual";
import { policyVersionsForAgent } from "@/lib/server/policies/policies";
import { replayPolicyWarnings } from "@/lib/server/replays/replays";
import { getSession } from "@/lib/server/sessions/sessions";
import { sessionCrumbs } from "@/components/sessions/crumbs";

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
  const versions = await policyVersionsForAgent(principal, { agentId: session.agentId }, prisma);
  // The adapter caveats (what Kitaru and the policy-levels advice warn of) for this session's adapter and capabilities, per choice, shown before anything runs.
  const counterfactual = await counterfactualFormOptions(principal, {}, prisma);
  const warnings = await replayPolicyWarnings(
    principal,
    {
      sessionId: session.id,
      documents: [RECOMMENDED_RCA_POLICY, RECORDED_ONLY, FORK_LIVE, ...versions.map((v) => v.document)],
    },
    prisma,
  );
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
    ...(counterfactual.modelEndpoints.length > 0
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
