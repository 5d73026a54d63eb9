import { Badge, StatusBadge } from "@/components/ui/Badge";
import type { ReplayStep } from "@/lib/replay";
import { previewText } from "@/lib/format";
import { DataTable } from "@/components/ui/DataTable";
import { INPUT_ONLY_LABEL, isInputOnlyStep } from "@/components/counterfactual/labels";

const SOURCE_TONE: Record<string, "neutral" | "info" | "warn" | "bad" | "good"> = {
  recorded: "neutral",
  static: "info",
  fixture: "info",
  edit: "info",
  live: "warn",
  llm: "warn",
  provider_fixture: "warn",
  error_result: "bad",
  blocked: "bad",
};

function preview(s: ReplayStep): string {
  if (s.error) return `${s.error.type}: ${s.error.message}`;
  if (s.kind === "tool_call")
    return `${previewText((s.input as { args?: unknown } | null)?.args, 60)} ⇒ ${previewText(s.output, 80)}`;
  if (s.kind === "model_call") {
    const out = s.output as { content?: unknown; toolCalls?: { name: string }[] } | null;
    const calls = out?.toolCalls?.map((c) => c.name).join(", ");
    return calls ? `→ ${calls}` : previewText(out?.content);
  }
  return previewText(s.output ?? s.input);
}

/** The branch's steps with where each came from. Long branches show the first `limit`; the comparison has them all. */
export function ReplayStepList({ steps, limit = 300 }: { steps: ReplayStep[]; limit?: number }) {
  const shown = steps.slice(0, limit);
  return (
    <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
      <DataTable
        frame={false}
        fixed
        columns={[
          { label: "Step", className: "w-14" },
          { label: "Call", className: "w-48" },
          { label: "Source", className: "w-28" },
          { label: "Base", className: "w-44" },
          "Result",
        ]}
      >
        {shown.map((s) => (
          <tr
            key={s.seq}
            id={`step-${s.seq}`}
            className="border-t border-slate-100 align-top"
            data-testid="replay-step"
          >
            <td className="px-3 py-1.5 font-mono text-xs text-slate-500">{s.seq}</td>
            <td className="truncate px-3 py-1.5">
              <span className="text-xs text-slate-500">{s.kind.replace("_call", "").replace("_", " ")}</span>{" "}
              <span className="font-mono text-xs">{s.name}</span>
            </td>
            <td className="px-3 py-1.5">
              <Badge tone={SOURCE_TONE[s.source] ?? "neutral"}>{s.source}</Badge>
            </td>
            <td className="px-3 py-1.5 text-xs">
              {s.equalsBase ? (
                <span className="text-slate-400">= {s.baseSeq}</span>
              ) : isInputOnlyStep(s) ? (
                <Badge
                  tone="neutral"
                  title={`Its input differs from base step ${s.baseSeq}; its output is the recorded one`}
                >
                  {INPUT_ONLY_LABEL}
                </Badge>
              ) : (
                <Badge tone="warn">{s.baseSeq === null ? "new" : `≠ ${s.baseSeq}`}</Badge>
              )}
            </td>
            <td className="truncate px-3 py-1.5 font-mono text-xs text-slate-700">
              {s.status === "failed" ? <StatusBadge status="failed" /> : null} {preview(s)}
            </td>
          </tr>
        ))}
      </DataTable>
      {steps.length > limit ? (
        <p className="border-t border-slate-100 px-3 py-2 text-sm text-slate-500">
          Showing the first {limit} of {steps.length} steps; the comparison shows every step.
        </p>
      ) : null}
    </div>
  );
}
