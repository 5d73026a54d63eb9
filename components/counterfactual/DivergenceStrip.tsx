import { divergenceColour } from "./labels";

export interface StripCell {
  /** The base step. */
  seq: number;
  /** Share of runs that departed from the record here. */
  rate: number;
  /** Not measured here: the cell is left blank. */
  blank?: boolean;
  /** What the cell says on hover. */
  title: string;
}

/**
 * One cell per base step, darker where more runs departed from the record there: the strip repeated trials and
 * determinism probes both draw. `testId` names the strip and `cellTestId` its cells (each with data-seq and
 * data-rate).
 */
export function DivergenceStrip({
  cells,
  testId,
  cellTestId,
}: {
  cells: readonly StripCell[];
  testId: string;
  cellTestId: string;
}) {
  return (
    <div className="mt-3 flex flex-wrap gap-0.5" data-testid={testId}>
      {cells.map((c) => (
        <div
          key={c.seq}
          data-testid={cellTestId}
          data-seq={c.seq}
          data-rate={c.rate}
          title={c.title}
          className="flex h-10 w-10 items-end justify-center rounded text-[10px] text-slate-700 ring-1 ring-slate-200 ring-inset"
          style={{ background: c.blank ? undefined : divergenceColour(c.rate) }}
        >
          {c.seq}
        </div>
      ))}
    </div>
  );
}
