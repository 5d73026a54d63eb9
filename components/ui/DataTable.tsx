import type { ReactNode } from "react";

export type Column = string | { label: string; align?: "left" | "right"; nowrap?: boolean };

/**
 * The frame every list page uses: a bordered, horizontally scrollable table
 * with one header style. Rows are the caller's (`<tr>` with `Cell`s), keyed by id.
 */
export function DataTable({ columns, children, label }: { columns: Column[]; children: ReactNode; label?: string }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-sm" aria-label={label}>
        <thead className="border-b border-slate-200 bg-slate-50 text-left text-xs font-medium tracking-wide text-slate-500 uppercase">
          <tr>
            {columns.map((c) => {
              const col = typeof c === "string" ? { label: c } : c;
              return (
                <th
                  key={col.label}
                  className={`px-3 py-2 ${col.align === "right" ? "text-right" : ""} ${col.nowrap ? "whitespace-nowrap" : ""}`}
                >
                  {col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
