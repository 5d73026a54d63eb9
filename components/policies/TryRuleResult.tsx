import { JsonBlock } from "@/components/ui/JsonBlock";
import { formatPath, type RuleExplanation } from "@/lib/replay";
import { pathLabel } from "./issues";

const VERDICT_TEXT: Record<RuleExplanation["verdict"]["type"], string> = {
  answer: "Answers",
  stop: "Stops the replay",
  pause: "Pauses for a fixture",
  awaiting_approval: "Waits for approval",
  would_run_live: "Would run live",
};

/** What the rule answered for the recorded call, by which rule, and why it missed (the closest recorded calls). */
export function TryRuleResult({ result }: { result: RuleExplanation }) {
  const v = result.verdict;
  const miss = "miss" in v ? v.miss : null;
  return (
    <div className="mt-3 space-y-2 text-xs" data-testid="try-result">
      <div>
        <span className="font-semibold text-slate-900" data-testid="try-verdict">
          {VERDICT_TEXT[v.type]}
        </span>{" "}
        <span className="text-slate-600">
          by the rule at <code className="font-mono">{pathLabel(result.rulePath)}</code> ({result.rule.type}) ·
          occurrence {result.occurrence}
        </span>
      </div>
      {result.note ? (
        <p className="text-slate-700" data-testid="try-note">
          {result.note}
        </p>
      ) : null}
      {v.type === "answer" ? (
        <div className="grid grid-cols-1 gap-2 md:grid-cols-2">
          <div className="text-slate-600">
            Source: <strong>{v.source}</strong>
            {v.recordedSeq !== null ? ` (recorded step #${v.recordedSeq})` : ""}
          </div>
          <JsonBlock value={v.error ?? v.output} label={v.error ? "Error" : "Result"} />
        </div>
      ) : null}
      {v.type === "stop" || v.type === "awaiting_approval" ? <p className="text-slate-700">{v.message}</p> : null}
      {miss ? (
        <div className="rounded border border-amber-200 bg-amber-50 p-2 text-amber-950" data-testid="try-miss">
          <div className="font-semibold">Miss: {miss.message}</div>
          {miss.staticCases && miss.staticCases.length > 0 ? (
            <ul className="mt-1 list-disc pl-5">
              {miss.staticCases.map((c) => (
                <li key={c.index}>
                  case {c.index + 1} ({c.matchMode}):{" "}
                  {c.notAnObject
                    ? "the arguments are not an object"
                    : `differs at ${c.differingPaths.map((p) => formatPath(p)).join(", ") || "—"}`}
                </li>
              ))}
            </ul>
          ) : null}
          {miss.closest.length > 0 ? (
            <div className="mt-1">
              Closest recorded calls:
              <ul className="list-disc pl-5">
                {miss.closest.map((c) => (
                  <li key={c.seq}>
                    step #{c.seq} ({c.status}) differs at{" "}
                    {c.differingPaths.map((p) => formatPath(p)).join(", ") || "no argument (same call)"}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
