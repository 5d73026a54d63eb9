import { DataTable } from "@/components/ui/DataTable";
import { probeDivergence, type ProbeReport } from "@/lib/replay";
import { DivergenceStrip } from "./DivergenceStrip";
import { percent } from "./labels";
import { Card } from "@/components/ui/Card";

/**
 * A determinism probe's answer, in the view repeated trials use: per base step, how many of the runs of its
 * recorded input answered differently from the record, and per probed model step the spread of answers.
 */
export function ProbeVariance({
  probes,
  steps,
  baseLength,
  baseSteps,
}: {
  probes: readonly ProbeReport[];
  /** The branch steps the probes name (at least). */
  steps: readonly { seq: number; baseSeq: number | null }[];
  baseLength: number;
  /** Kind and name of the base steps those stand for (at least). */
  baseSteps: readonly { seq: number; kind: string; name: string }[];
}) {
  if (probes.length === 0) return null;
  const cells = probeDivergence(probes, steps, baseLength);
  const named = new Map(baseSteps.map((s) => [s.seq, s]));
  const runs = probes[0]!.runs;
  return (
    <Card padding="lg" className="mb-6" aria-label="Determinism probe">
      <h2 className="text-base font-semibold text-slate-900">How deterministic the model is here</h2>
      <p className="mt-1 text-sm text-slate-600">
        Each recorded model input was sent {runs} times. Darker cells are base steps where more of those runs answered
        differently from the record.
      </p>
      <DivergenceStrip
        testId="probe-strip"
        cellTestId="probe-cell"
        cells={cells.map((c) => {
          const step = named.get(c.baseSeq);
          return {
            seq: c.baseSeq,
            rate: c.rate,
            blank: c.n === 0,
            title: `step ${c.baseSeq}${step ? ` ${step.kind} ${step.name}` : ""}: ${c.n === 0 ? "not probed" : `${c.diverged} of ${c.n} runs answered differently`}`,
          };
        })}
      />
      <DataTable
        className="mt-4"
        frame={false}
        dense
        label="Probed model steps"
        columns={[
          "Model step",
          "Branch step",
          "Distinct answers",
          "Same as the record",
          "Unlike the most common answer",
        ]}
      >
        {probes.map((p) => (
          <tr key={p.modelStep} data-testid="probe-report">
            <td className="py-1 pr-2 tabular-nums">{p.modelStep}</td>
            <td className="py-1 pr-2 tabular-nums">{p.step}</td>
            <td className="py-1 pr-2 tabular-nums">{p.distinctOutputs}</td>
            <td className="py-1 pr-2 tabular-nums">
              {p.matchesRecorded} of {p.runs}
            </td>
            <td className="py-1 pr-2 tabular-nums">{percent(p.variance)}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}
