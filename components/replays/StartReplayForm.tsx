"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { startReplayAction } from "@/lib/actions/replays";
import { CheckPicker } from "@/components/checks/CheckPicker";
import { useActionForm, type ActionFormError } from "@/components/ui/useActionForm";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { Card } from "@/components/ui/Card";
import type { EditTarget } from "./edit-values";
import { EditList } from "./EditList";
import {
  Caveats,
  FORK_LIVE_CHOICE,
  ReplayPolicyCard,
  type LiveRunOptions,
  type ModelEndpointChoice,
  type PolicyChoice,
} from "./ReplayPolicyCard";
import { useEditDrafts } from "./useEditDrafts";
import { AgentConnectPanel, DriverChoice, type AgentAccessView, type Driver } from "./AgentConnectPanel";

export { FORK_LIVE_CHOICE, type PolicyChoice };

/** What the counterfactual part of the form may offer: the configured model endpoints and the saved checks. */
export interface CounterfactualOptions {
  modelEndpoints: ModelEndpointChoice[];
  savedChecks: { id: string; name: string; kind: string }[];
}

/** Where a policy's model comes from: copied from the record, blocked, or a live one (fork-live and the like). */
function modelMode(choice: PolicyChoice | undefined): "none" | "copied" | "live" {
  const model = choice?.policy?.model ?? choice?.model;
  if (model === undefined || model === "blocked") return "none";
  return model === "recorded-only" ? "copied" : "live";
}

/** Choose a policy, add counterfactual edits, run. */
export function StartReplayForm({
  sessionId,
  choices,
  targets,
  counterfactual = { modelEndpoints: [], savedChecks: [] },
}: {
  sessionId: string;
  choices: PolicyChoice[];
  targets: EditTarget[];
  counterfactual?: CounterfactualOptions;
}) {
  const router = useRouter();
  const [choice, setChoice] = useState(choices[0]?.value ?? "");
  const [choiceTouched, setChoiceTouched] = useState(false);
  const [live, setLive] = useState<LiveRunOptions>({ endpoint: "", trials: 1 });
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const drafts = useEditDrafts(targets);
  const form = useActionForm({ refresh: false });
  const [started, setStarted] = useState<{ id: string; warnings: string[] } | null>(null);
  const [driver, setDriver] = useState<Driver>("server");
  const [agent, setAgent] = useState<{ id: string; access: AgentAccessView } | null>(null);
  const selected = choices.find((c) => c.value === choice);
  const forkLiveOffered = choices.some((c) => c.value === FORK_LIVE_CHOICE);
  const mode = modelMode(selected);
  const runsLive = mode === "live";

  const choose = (value: string) => {
    setChoice(value);
    setChoiceTouched(true);
  };
  const addEdit = () => {
    // The first edit: propose fork-live, unless the analyst already chose a policy.
    if (drafts.edits.length === 0 && !choiceTouched && forkLiveOffered) setChoice(FORK_LIVE_CHOICE);
    drafts.add();
  };

  const run = (e: React.FormEvent) => {
    e.preventDefault();
    const parsed = drafts.parse();
    if ("problem" in parsed) return form.fail(parsed.problem);
    form.run(
      () =>
        startReplayAction({
          sessionId,
          ...(selected?.versionId ? { policyVersionId: selected.versionId } : { policy: selected?.policy }),
          edits: parsed.edits,
          ...(runsLive && live.endpoint ? { modelEndpoint: live.endpoint } : {}),
          ...(checkIds.length > 0 ? { checks: checkIds } : {}),
          ...(runsLive && live.trials > 1 && driver === "server" ? { trials: live.trials } : {}),
          ...(driver === "agent" ? { driver, agent: { adapter: "dashboard", capabilities: ["tool_policies"] } } : {}),
        }),
      (data) => {
        if (data.agent) return setAgent({ id: data.id, access: data.agent });
        if (data.trialSetId) return router.push(`/trials/${data.trialSetId}`);
        // Caveats shown before starting were read; any new ones (tools or capabilities changed meanwhile) are shown here first.
        const unseen = data.warnings.filter((w) => !(selected?.warnings ?? []).includes(w));
        if (unseen.length > 0) return setStarted({ id: data.id, warnings: unseen });
        router.push(`/replays/${data.id}`);
      },
    );
  };

  return (
    <form onSubmit={run} className="space-y-6" aria-label="Start a replay">
      <ReplayPolicyCard
        choices={choices}
        choice={choice}
        onChoose={choose}
        showForkLiveAdvice={drafts.edits.length > 0 && mode === "copied"}
        forkLiveOffered={forkLiveOffered}
        endpoints={counterfactual.modelEndpoints}
        runsLive={runsLive}
        live={live}
        onLiveChange={setLive}
      />

      <DriverChoice driver={driver} onChange={setDriver} hasEdits={drafts.edits.length > 0} />

      <Card padding="lg">
        <h2 className="text-base font-semibold text-slate-900">Outcome checks</h2>
        <CheckPicker
          checks={counterfactual.savedChecks}
          selected={checkIds}
          onChange={setCheckIds}
          legend="Judge the base run and the branch by:"
        />
      </Card>

      <EditList
        edits={drafts.edits}
        targets={targets}
        onAdd={addEdit}
        onUpdate={drafts.update}
        onRemove={drafts.remove}
      />

      {form.error ? <StartProblem error={form.error} /> : null}
      {started ? (
        <div>
          <Caveats title="The replay started with these caveats" warnings={started.warnings} />
          <Link
            href={`/replays/${started.id}`}
            className="mt-2 inline-block text-sm font-medium text-indigo-700 hover:underline"
          >
            Open the branch →
          </Link>
        </div>
      ) : null}
      {agent ? <AgentConnectPanel replayId={agent.id} access={agent.access} /> : null}
      <Button type="submit" disabled={form.pending || started !== null || agent !== null}>
        {form.pending ? "Starting…" : driver === "agent" ? "Start and wait for my agent" : "Run replay"}
      </Button>
    </form>
  );
}

/** Why the replay did not start, with every problem the server named under its path. */
function StartProblem({ error }: { error: ActionFormError }) {
  return (
    <Notice tone="error">
      {error.message}
      {error.issues.length > 0 ? (
        <ul className="mt-1 list-disc pl-5">
          {error.issues.map((i) => (
            <li key={`${i.path}:${i.message}`}>
              <span className="font-mono">{i.path}</span>: {i.message}
            </li>
          ))}
        </ul>
      ) : null}
    </Notice>
  );
}
