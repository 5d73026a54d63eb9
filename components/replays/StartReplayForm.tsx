"use client";

import { CheckPicker } from "@/components/checks/CheckPicker";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { startReplayAction } from "@/lib/actions/replays";
import { JsonEditor } from "@/components/ui/monaco";
import type { EditOp, Policy } from "@/lib/replay";
import { EDIT_OPS, initialEditValue, targetsFor, type EditTarget } from "./edit-values";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { Card } from "@/components/ui/Card";

export interface PolicyChoice {
  value: string;
  label: string;
  /** A document to send; absent for saved versions (sent by id). */
  policy?: Policy;
  versionId?: string;
  /** A saved version's model policy (a document carries its own). */
  model?: string;
  /** The policy's caveats for this session (adapter, capabilities, tools), in the rules' own words. */
  warnings: string[];
}

function Caveats({ warnings, title }: { warnings: readonly string[]; title: string }) {
  return (
    <Notice tone="warning" className="mt-3" testId="policy-warnings" title={title}>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        {warnings.map((w) => (
          <li key={w} className="break-words">
            {w}
          </li>
        ))}
      </ul>
    </Notice>
  );
}

type EditDraft = { key: number; op: EditOp; seq: number | null; text: string };

export const FORK_LIVE_CHOICE = "preset:fork-live";

/** What the counterfactual part of the form may offer: the configured model endpoints and the saved checks. */
export interface CounterfactualOptions {
  modelEndpoints: { id: string; name: string; model: string }[];
  savedChecks: { id: string; name: string; kind: string }[];
}

/** A copied model means edits cannot change what the agent does: say so, and offer fork-live (or say why it is not on offer). */
function ForkLiveAdvice({ hasEndpoint, onUseForkLive }: { hasEndpoint: boolean; onUseForkLive: () => void }) {
  return (
    <div
      role="status"
      data-testid="fork-live-advice"
      className="mt-3 rounded-md border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-950"
    >
      {hasEndpoint ? (
        <>
          <p>
            Under this policy every model output is copied from the record, so your edits change what the model is sent
            but not what the agent does next.
          </p>
          <Button variant="primary" className="mt-2" onClick={onUseForkLive}>
            Use fork-live: run the model live from the first changed step
          </Button>
        </>
      ) : (
        <p>
          Edits cannot change what the agent does without a live model: every model output after an edit is copied from
          the record, so the branch ends with the recorded answer. To see what the agent would do instead,{" "}
          <Link href="/settings/executors" className="font-medium text-sky-800 underline">
            configure a model endpoint in the executor settings
          </Link>
          , then choose fork-live.
        </p>
      )}
    </div>
  );
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
  const [endpoint, setEndpoint] = useState("");
  const [checkIds, setCheckIds] = useState<string[]>([]);
  const [trials, setTrials] = useState(1);
  const [edits, setEdits] = useState<EditDraft[]>([]);
  const [problem, setProblem] = useState<{ message: string; issues: { path: string; message: string }[] } | null>(null);
  const [pending, startTransition] = useTransition();
  const [started, setStarted] = useState<{ id: string; warnings: string[] } | null>(null);
  const selectedChoice = choices.find((c) => c.value === choice);
  const hasEndpoint = counterfactual.modelEndpoints.length > 0;
  const forkLiveOffered = choices.some((c) => c.value === FORK_LIVE_CHOICE);
  const selectedModel = selectedChoice?.policy?.model ?? selectedChoice?.model;
  const copiesModel = selectedModel === "recorded-only";
  const runsLive = selectedModel !== undefined && selectedModel !== "recorded-only" && selectedModel !== "blocked";
  const nextKey = () => Math.max(0, ...edits.map((e) => e.key)) + 1;

  const addEdit = () => {
    // The first edit: propose fork-live, unless the analyst already chose a policy.
    if (edits.length === 0 && !choiceTouched && forkLiveOffered) setChoice(FORK_LIVE_CHOICE);
    const first = targetsFor("replace_tool_result", targets)[0];
    setEdits([
      ...edits,
      {
        key: nextKey(),
        op: "replace_tool_result",
        seq: first?.seq ?? null,
        text: initialEditValue("replace_tool_result", first),
      },
    ]);
  };
  const update = (key: number, patch: Partial<EditDraft>) =>
    setEdits(
      edits.map((e) => {
        if (e.key !== key) return e;
        const next = { ...e, ...patch };
        if (patch.op && patch.op !== e.op) {
          const candidates = targetsFor(patch.op, targets);
          const keep = candidates.find((t) => t.seq === e.seq) ?? candidates[0];
          next.seq = keep?.seq ?? null;
          next.text = initialEditValue(patch.op, keep);
        } else if (patch.seq !== undefined && patch.seq !== e.seq) {
          next.text = initialEditValue(
            next.op,
            targets.find((t) => t.seq === patch.seq),
          );
        }
        return next;
      }),
    );

  const run = (e: React.FormEvent) => {
    e.preventDefault();
    const selected = choices.find((c) => c.value === choice);
    const parsedEdits: { seq: number; op: EditOp; value: unknown }[] = [];
    for (const [index, draft] of edits.entries()) {
      if (draft.seq === null) return setProblem({ message: `Edit ${index + 1}: choose a step.`, issues: [] });
      try {
        parsedEdits.push({ seq: draft.seq, op: draft.op, value: JSON.parse(draft.text) as unknown });
      } catch (error) {
        return setProblem({
          message: `Edit ${index + 1}: the value is not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
          issues: [],
        });
      }
    }
    startTransition(async () => {
      const result = await startReplayAction({
        sessionId,
        ...(selected?.versionId ? { policyVersionId: selected.versionId } : { policy: selected?.policy }),
        edits: parsedEdits,
        ...(runsLive && endpoint ? { modelEndpoint: endpoint } : {}),
        ...(checkIds.length > 0 ? { checks: checkIds } : {}),
        ...(runsLive && trials > 1 ? { trials } : {}),
      });
      if (!result.ok) return setProblem({ message: result.error.message, issues: result.error.issues });
      if (result.data.trialSetId) return router.push(`/trials/${result.data.trialSetId}`);
      // Caveats shown before starting were read; any new ones (tools or capabilities changed meanwhile) are shown here first.
      const unseen = result.data.warnings.filter((w) => !(selected?.warnings ?? []).includes(w));
      if (unseen.length > 0) return setStarted({ id: result.data.id, warnings: unseen });
      router.push(`/replays/${result.data.id}`);
    });
  };

  return (
    <form onSubmit={run} className="space-y-6" aria-label="Start a replay">
      <Card padding="lg">
        <h2 className="text-base font-semibold text-slate-900">Policy</h2>
        <label className="mt-2 block text-sm">
          <span className="text-slate-600">
            The rules the branch runs under (stored with the replay as a snapshot and hash)
          </span>
          <select
            name="policy"
            value={choice}
            onChange={(e) => {
              setChoice(e.target.value);
              setChoiceTouched(true);
            }}
            className="mt-1 block w-full max-w-3xl rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          >
            {choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {selectedChoice && selectedChoice.warnings.length > 0 ? (
          <Caveats
            title="Caveats for this session's adapter: the replay runs, but its evidence rests on these"
            warnings={selectedChoice.warnings}
          />
        ) : null}
        {edits.length > 0 && copiesModel ? (
          <ForkLiveAdvice
            hasEndpoint={hasEndpoint && forkLiveOffered}
            onUseForkLive={() => {
              setChoice(FORK_LIVE_CHOICE);
              setChoiceTouched(true);
            }}
          />
        ) : null}
        {runsLive && hasEndpoint ? (
          <div className="mt-4 flex flex-wrap items-end gap-4 text-sm">
            {counterfactual.modelEndpoints.length > 1 ? (
              <label>
                <span className="block text-xs text-slate-500">Model endpoint</span>
                <select
                  aria-label="Model endpoint"
                  value={endpoint}
                  onChange={(e) => setEndpoint(e.target.value)}
                  className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1"
                >
                  <option value="">the one serving the recorded model</option>
                  {counterfactual.modelEndpoints.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.name} ({m.model})
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <p className="text-slate-600">
                Live model steps run on <strong>{counterfactual.modelEndpoints[0]!.name}</strong>.
              </p>
            )}
            <label>
              <span className="block text-xs text-slate-500">Trials (1–50)</span>
              <input
                type="number"
                aria-label="Trials"
                min={1}
                max={50}
                value={trials}
                onChange={(e) => setTrials(Math.max(1, Math.min(50, Math.trunc(Number(e.target.value)) || 1)))}
                className="mt-1 w-20 rounded-md border border-slate-300 px-2 py-1"
              />
            </label>
          </div>
        ) : null}
      </Card>

      <Card padding="lg">
        <h2 className="text-base font-semibold text-slate-900">Outcome checks</h2>
        <CheckPicker
          checks={counterfactual.savedChecks}
          selected={checkIds}
          onChange={setCheckIds}
          legend="Judge the base run and the branch by:"
        />
      </Card>

      <Card padding="lg">
        <div className="flex items-center justify-between">
          <h2 className="text-base font-semibold text-slate-900">Edits (counterfactuals)</h2>
          <Button variant="secondary" onClick={addEdit} disabled={targets.length === 0}>
            Add an edit
          </Button>
        </div>
        {edits.length === 0 ? (
          <p className="mt-2 text-sm text-slate-500">
            No edits: the branch replays the base run as recorded. Add one to change a tool result, tool arguments, a
            model output or the system prompt at a step.
          </p>
        ) : null}
        <ol className="mt-3 space-y-4">
          {edits.map((draft, index) => (
            <li key={draft.key} className="rounded-md border border-slate-200 p-3" data-testid="edit-draft">
              <div className="mb-2 flex flex-wrap items-end gap-3 text-sm">
                <label>
                  <span className="block text-xs text-slate-500">Edit {index + 1}</span>
                  <select
                    aria-label={`Edit ${index + 1} operation`}
                    value={draft.op}
                    onChange={(e) => update(draft.key, { op: e.target.value as EditOp })}
                    className="rounded-md border border-slate-300 bg-white px-2 py-1"
                  >
                    {EDIT_OPS.map((o) => (
                      <option key={o.op} value={o.op}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  <span className="block text-xs text-slate-500">at step</span>
                  <select
                    aria-label={`Edit ${index + 1} step`}
                    value={draft.seq ?? ""}
                    onChange={(e) => update(draft.key, { seq: Number(e.target.value) })}
                    className="rounded-md border border-slate-300 bg-white px-2 py-1"
                  >
                    {targetsFor(draft.op, targets).map((t) => (
                      <option key={t.seq} value={t.seq}>
                        {t.seq} · {t.name}
                      </option>
                    ))}
                  </select>
                </label>
                <Button
                  variant="dangerLink"
                  size="inline"
                  className="ml-auto text-sm"
                  onClick={() => setEdits(edits.filter((e) => e.key !== draft.key))}
                >
                  Remove
                </Button>
              </div>
              <JsonEditor
                key={`${draft.key}-${draft.op}-${draft.seq}`}
                value={draft.text}
                onChange={(text) => update(draft.key, { text })}
                height={160}
                path={`edit-${draft.key}.json`}
                ariaLabel={`Edit ${index + 1} value`}
              />
            </li>
          ))}
        </ol>
      </Card>

      {problem ? (
        <Notice tone="error">
          {problem.message}
          {problem.issues.length > 0 ? (
            <ul className="mt-1 list-disc pl-5">
              {problem.issues.map((i) => (
                <li key={`${i.path}:${i.message}`}>
                  <span className="font-mono">{i.path}</span>: {i.message}
                </li>
              ))}
            </ul>
          ) : null}
        </Notice>
      ) : null}
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
      <Button type="submit" disabled={pending || started !== null}>
        {pending ? "Starting…" : "Run replay"}
      </Button>
    </form>
  );
}
