import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/Badge";
import type { ForkPoint } from "@/lib/replay";
import type { PresentedVerdict } from "@/lib/server/checks/counterfactual";
import { forkReasonWords, outcomeWord, type VerdictOutcome } from "./labels";
import { Card } from "@/components/ui/Card";

const OUTCOME_TONE: Record<VerdictOutcome, Tone> = { pass: "good", fail: "bad", check_error: "warn" };

function Outcome({ side, outcome }: { side: string; outcome: VerdictOutcome | null | undefined }) {
  return (
    <Badge tone={outcome ? OUTCOME_TONE[outcome] : "neutral"}>
      {side} {outcomeWord(outcome)}
    </Badge>
  );
}

/** Where a fork-live branch started running the model live, in words. */
export function ForkNotice({ fork, modelPolicy }: { fork: ForkPoint | null; modelPolicy: string }) {
  if (modelPolicy !== "recorded-until-divergence") return null;
  return (
    <p
      className="mb-4 rounded-md border border-indigo-200 bg-indigo-50 px-4 py-2 text-sm text-indigo-900"
      data-testid="fork-point"
    >
      {fork?.reasons.includes("live_from_step") ? (
        <>
          Fork: the model ran live from branch step {fork.seq} (base step {fork.baseSeq ?? "—"}), model step{" "}
          {fork.modelStep}, where the policy asked it to start. Steps before it are copied from the record.
        </>
      ) : fork ? (
        <>
          Fork: the model ran live from branch step {fork.seq} (base step {fork.baseSeq ?? "—"}), the first model step
          whose input differed from the record ({fork.reasons.map(forkReasonWords).join("; ")}). Steps before it are
          copied from the record.
        </>
      ) : (
        <>No fork: every model step saw what it saw in the record, so every output was copied and no model ran live.</>
      )}
    </p>
  );
}

/** Each outcome check on the base run and on the branch: "base failed → branch passed", with the reasons. */
export function VerdictList({ verdicts }: { verdicts: readonly PresentedVerdict[] }) {
  if (verdicts.length === 0) return null;
  return (
    <Card className="mb-6" aria-label="Outcome checks">
      <h2 className="mb-2 text-base font-semibold text-slate-900">Outcome checks</h2>
      <ul className="space-y-3">
        {verdicts.map((v, k) => (
          <li key={`${v.checkId ?? "inline"}-${k}`} data-testid="verdict" className="text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium text-slate-900">{v.name}</span>
              <Outcome side="base" outcome={v.base?.outcome} />
              <span aria-hidden>→</span>
              <Outcome side="branch" outcome={v.branch?.outcome} />
              <span className="sr-only" data-testid="verdict-change">
                {v.change}
              </span>
            </div>
            <p className="mt-1 text-slate-600" data-testid="verdict-text">
              {v.change}.{v.branch ? ` Branch: ${v.branch.reason}` : ""}
              {v.base ? ` Base: ${v.base.reason}` : ""}
            </p>
            {v.branch?.judge ? (
              <details className="mt-1 text-xs text-slate-600">
                <summary className="disclosure cursor-pointer">The judge&apos;s prompt and answer</summary>
                <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 whitespace-pre-wrap">
                  {v.branch.judge.prompt.map((m) => `[${m.role}]\n${m.content}`).join("\n\n")}
                  {`\n\n[answer${v.branch.judge.model ? ` from ${v.branch.judge.model}` : ""}]\n${v.branch.judge.answer ?? "(none)"}`}
                </pre>
              </details>
            ) : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function TrialSetLink({ trialSet }: { trialSet: { id: string; index: number | null } | null }) {
  if (!trialSet) return null;
  return (
    <p className="mb-4 text-sm">
      Trial {(trialSet.index ?? 0) + 1} of a repeated run.{" "}
      <Link href={`/trials/${trialSet.id}`} className="font-medium text-indigo-700 hover:underline">
        See every trial →
      </Link>
    </p>
  );
}
