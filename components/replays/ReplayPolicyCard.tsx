"use client";

import Link from "next/link";
import { FORK_LIVE_CHOICE } from "@/lib/policies/presets";
import type { ReplayPolicyChoice } from "@/lib/server/replays/replay-presets";
import { APPROVAL_WORDS, DRIFT_WORDS, MODEL_WORDS, ON_MISS_WORDS, RULE_TYPE_WORDS } from "@/lib/policies/labels";
import type { ModelPolicy } from "@/lib/replay";
import { ValueWords } from "@/components/policies/EnumWords";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";
import { Card } from "@/components/ui/Card";

export { FORK_LIVE_CHOICE };

/** A policy the form offers: a preset adapted to the session, or a saved version. */
export type PolicyChoice = ReplayPolicyChoice;

/** The configured model endpoints a live branch may run on. */
export type ModelEndpointChoice = { id: string; name: string; model: string };

/** How a live branch runs: on which model endpoint ("" for the one serving the recorded model) and how many times. */
export type LiveRunOptions = { endpoint: string; trials: number };

export function Caveats({ warnings, title }: { warnings: readonly string[]; title: string }) {
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

/** What the chosen policy does, in words, with the document's raw values for people who write JSON. */
function ChoiceSummary({ choice }: { choice: PolicyChoice }) {
  const policy = choice.policy;
  const model = (policy?.model ?? choice.model) as ModelPolicy | undefined;
  const rule = policy?.tools.default;
  const named = Object.keys(policy?.tools.overrides ?? {}).length;
  return (
    <div className="mt-2 max-w-3xl space-y-1 text-sm text-slate-600" data-testid="policy-choice-summary">
      {choice.help ? <p>{choice.help}</p> : null}
      {choice.note ? <p className="text-slate-500">{choice.note}</p> : null}
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
        {model && model in MODEL_WORDS ? (
          <>
            <dt className="text-slate-500">Model</dt>
            <dd>
              <ValueWords words={MODEL_WORDS[model]} value={model} />
            </dd>
          </>
        ) : null}
        {policy ? (
          <>
            <dt className="text-slate-500">After a difference</dt>
            <dd>
              <ValueWords words={DRIFT_WORDS[policy.drift]} value={policy.drift} />
            </dd>
          </>
        ) : null}
        {rule ? (
          <>
            <dt className="text-slate-500">Tools</dt>
            <dd>
              <ValueWords words={RULE_TYPE_WORDS[rule.type]} value={rule.type} />
              {rule.type === "history" ? (
                <>
                  {" · if none: "}
                  <ValueWords words={ON_MISS_WORDS[rule.on_miss]} value={rule.on_miss} />
                </>
              ) : null}
              {rule.type === "passthrough" && rule.approval === "per_call" ? (
                <>
                  {" · "}
                  <ValueWords words={APPROVAL_WORDS.per_call} value="per_call" />
                </>
              ) : null}
              {named > 0 ? ` · ${named} tool${named === 1 ? "" : "s"} with a rule of their own` : null}
            </dd>
          </>
        ) : null}
      </dl>
    </div>
  );
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

/** Which endpoint live model steps run on, and how many trials. */
function LiveRunFields({
  endpoints,
  value,
  onChange,
}: {
  endpoints: readonly ModelEndpointChoice[];
  value: LiveRunOptions;
  onChange: (value: LiveRunOptions) => void;
}) {
  return (
    <div className="mt-4 flex flex-wrap items-end gap-4 text-sm">
      {endpoints.length > 1 ? (
        <label>
          <span className="block text-xs text-slate-500">Model endpoint</span>
          <select
            aria-label="Model endpoint"
            value={value.endpoint}
            onChange={(e) => onChange({ ...value, endpoint: e.target.value })}
            className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1"
          >
            <option value="">the one serving the recorded model</option>
            {endpoints.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} ({m.model})
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p className="text-slate-600">
          Live model steps run on <strong>{endpoints[0]!.name}</strong>.
        </p>
      )}
      <label>
        <span className="block text-xs text-slate-500">Trials (1–50)</span>
        <input
          type="number"
          aria-label="Trials"
          min={1}
          max={50}
          value={value.trials}
          onChange={(e) =>
            onChange({ ...value, trials: Math.max(1, Math.min(50, Math.trunc(Number(e.target.value)) || 1)) })
          }
          className="mt-1 w-20 rounded-md border border-slate-300 px-2 py-1"
        />
      </label>
    </div>
  );
}

/** The "Policy" part of the start form: the rules the branch runs under, their caveats, and how a live model runs. */
export function ReplayPolicyCard({
  choices,
  choice,
  onChoose,
  showForkLiveAdvice,
  forkLiveOffered,
  endpoints,
  runsLive,
  live,
  onLiveChange,
}: {
  choices: readonly PolicyChoice[];
  choice: string;
  onChoose: (value: string) => void;
  /** Edits under a policy that copies the model: they cannot change what the agent does. */
  showForkLiveAdvice: boolean;
  forkLiveOffered: boolean;
  endpoints: readonly ModelEndpointChoice[];
  runsLive: boolean;
  live: LiveRunOptions;
  onLiveChange: (value: LiveRunOptions) => void;
}) {
  const selected = choices.find((c) => c.value === choice);
  const hasEndpoint = endpoints.length > 0;
  return (
    <Card padding="lg">
      <h2 className="text-base font-semibold text-slate-900">Policy</h2>
      <label className="mt-2 block text-sm">
        <span className="text-slate-600">
          The rules the branch runs under (stored with the replay as a snapshot and hash)
        </span>
        <select
          name="policy"
          value={choice}
          onChange={(e) => onChoose(e.target.value)}
          className="mt-1 block w-full max-w-3xl rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
        >
          {choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {selected ? <ChoiceSummary choice={selected} /> : null}
      {selected && selected.warnings.length > 0 ? (
        <Caveats
          title="Caveats for this session's adapter: the replay runs, but its evidence rests on these"
          warnings={selected.warnings}
        />
      ) : null}
      {showForkLiveAdvice ? (
        <ForkLiveAdvice hasEndpoint={hasEndpoint && forkLiveOffered} onUseForkLive={() => onChoose(FORK_LIVE_CHOICE)} />
      ) : null}
      {runsLive && hasEndpoint ? <LiveRunFields endpoints={endpoints} value={live} onChange={onLiveChange} /> : null}
    </Card>
  );
}
