import type { ReactNode } from "react";
import { DataTable, type Column } from "@/components/ui/DataTable";
import { Card } from "@/components/ui/Card";

/**
 * A chart with its text alternative: a title, one sentence that says what the chart shows (with its numbers),
 * the drawing (hidden from screen readers: the sentence and the table say it all), and the numbers as a table
 * under "Show the numbers". With nothing to draw, `empty` says why and what to do instead.
 */
export function ChartFigure({
  id,
  title,
  summary,
  columns,
  rows,
  empty,
  children,
}: {
  /** Names the figure for tests and links: `chart-<id>`. */
  id: string;
  title: string;
  summary: ReactNode;
  columns: Column[];
  rows: ReactNode[][];
  /** Set when there is nothing to draw: what the reader can do to get a chart. */
  empty?: ReactNode;
  children: ReactNode;
}) {
  const titleId = `chart-${id}-title`;
  return (
    <Card
      as="figure"
      className="min-w-0"

      aria-labelledby={titleId}
      data-testid={`chart-${id}`}
    >
      <figcaption>
        <h3 id={titleId} className="text-sm font-semibold text-slate-900">
          {title}
        </h3>
        <p className="mt-1 text-sm text-slate-700" data-testid="chart-summary">
          {empty ?? summary}
        </p>
      </figcaption>
      {empty ? null : (
        <>
          <div className="mt-3" aria-hidden="true" data-testid="chart-drawing">
            {children}
          </div>
          <details className="mt-2 text-sm">
            <summary className="cursor-pointer text-indigo-700 hover:underline">Show the numbers</summary>
            <DataTable frame={false} dense label={title} columns={columns} className="mt-2 tabular-nums">
              {rows.map((cells, r) => (
                <tr key={r} data-testid="chart-row">
                  {cells.map((c, k) => (
                    <td key={k} className={`py-1 pr-2 ${k > 0 ? "text-right" : ""}`}>
                      {c}
                    </td>
                  ))}
                </tr>
              ))}
            </DataTable>
          </details>
        </>
      )}
    </Card>
  );
}
