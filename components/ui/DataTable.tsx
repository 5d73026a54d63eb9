import type { ReactNode } from "react";
import { Card } from "./Card";
import { ScrollFrame } from "./ScrollFrame";

export type Column =
  | string
  | {
      label: string;
      align?: "left" | "right";
      nowrap?: boolean;
      /** Read by screen readers only (a column of row actions). */
      srOnly?: boolean;
      /** Extra classes for the header cell, e.g. a fixed width. */
      className?: string;
      /** The order the rows are in by this column, for a sortable one (its `content` is then the link that sorts). */
      ariaSort?: "ascending" | "descending" | "none";
      /** What the header shows in place of its label (a sorting link); the label still names the column. */
      content?: ReactNode;
    };

/** A column of numbers: its header set right, as the caller sets its cells. */
export const numberColumn = (label: string): Column => ({ label, align: "right" });

/**
 * A header cell holding a screen-reader-only label is its containing block: the label is absolutely
 * placed, and would otherwise be placed against the page, past the frame's scrolling box, widening
 * the page on a narrow screen.
 */
const SR_ONLY_HOLDER = "relative";

type DataTableProps = {
  columns: Column[];
  children: ReactNode;
  label?: string;
  frame?: boolean;
  dense?: boolean;
  fixed?: boolean;
  bodies?: boolean;
  className?: string;
};

/**
 * The one table of the app: a header row from `columns` and the caller's rows
 * (`<tr>`s keyed by id), in a box that scrolls sideways when the table is wider
 * than the screen. `frame` draws the bordered box a list page uses; without it
 * the table sits inside the caller's card.
 * `bodies` means the children are `<tbody>` groups of their own.
 */
export function DataTable({
  columns,
  children,
  label,
  frame = true,
  dense = false,
  fixed = false,
  bodies = false,
  className = "",
}: DataTableProps) {
  const table = (
    <table className={`w-full text-sm ${fixed ? "table-fixed" : ""} ${frame ? "" : className}`} aria-label={label}>
      <thead
        className={`border-b border-slate-200 text-left text-xs font-medium tracking-wide text-slate-600 uppercase ${dense ? "" : "bg-slate-50"}`}
      >
        <tr>
          {columns.map((c, i) => {
            const col = typeof c === "string" ? { label: c } : c;
            return (
              <th
                key={`${i}-${col.label}`}
                scope="col"
                aria-sort={col.ariaSort}
                className={`${dense ? "py-1 pr-2" : "px-3 py-2"} font-medium ${col.srOnly ? SR_ONLY_HOLDER : ""} ${col.align === "right" ? "text-right" : ""} ${col.nowrap ? "whitespace-nowrap" : ""} ${col.className ?? ""}`}
              >
                {col.srOnly ? <span className="sr-only">{col.label}</span> : (col.content ?? col.label)}
              </th>
            );
          })}
        </tr>
      </thead>
      {bodies ? children : <tbody className="divide-y divide-slate-100">{children}</tbody>}
    </table>
  );
  // Either way the table scrolls sideways inside its box on a narrow screen instead of widening the page (nothing
  // in a row opens outside it: a row's confirmation opens in the row's own flow).
  if (!frame)
    return (
      <ScrollFrame className="overflow-x-auto" label={label}>
        {table}
      </ScrollFrame>
    );
  return (
    <ScrollFrame className={`overflow-x-auto rounded-lg border border-slate-200 bg-white ${className}`} label={label}>
      {table}
    </ScrollFrame>
  );
}

/** A DataTable alone in a card (a list's table), `cardClassName` the card's classes. */
export function CardTable({
  cardClassName = "overflow-hidden",
  ...table
}: Omit<DataTableProps, "frame"> & { cardClassName?: string }) {
  return (
    <Card as="div" padding="none" className={cardClassName}>
      <DataTable {...table} frame={false} />
    </Card>
  );
}
