"use client";

import { useId } from "react";
import { COMPARE_FILTERS, TYPE_LABEL, type CompareFilter } from "@/lib/session-view/compare-rows";

/** A filter's words in the select: what it shows and how many pairs. */
const filterWords = (f: CompareFilter, counts: Record<CompareFilter, number>) =>
  f === "all"
    ? `all (${counts.all})`
    : f === "changes"
      ? `all differences (${counts.changes})`
      : `${TYPE_LABEL[f]} (${counts[f]})`;

/** "Show" and the select of which aligned pairs to list, each filter with its count (the comparison, the picker). */
export function CompareFilterSelect({
  filter,
  counts,
  onFilter,
  labelClassName,
}: {
  filter: CompareFilter;
  counts: Record<CompareFilter, number>;
  onFilter: (next: CompareFilter) => void;
  labelClassName: string;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className={labelClassName}>
        Show
      </label>
      <select
        id={id}
        value={filter}
        onChange={(e) => onFilter(e.target.value as CompareFilter)}
        className="rounded-md border border-slate-300 bg-white px-2 py-1"
      >
        {COMPARE_FILTERS.map((f) => (
          <option key={f} value={f}>
            {filterWords(f, counts)}
          </option>
        ))}
      </select>
    </>
  );
}
