"use client";

import { useEffect, useState, type ReactNode } from "react";
import { previewCohortAction } from "@/lib/actions/experiments";
import type { CohortFilterInput } from "@/lib/server/experiments/experiments";
import { StatusOptions } from "@/components/sessions/StatusOptions";

export type Filter = { status: string; tool: string; q: string; from: string; to: string };
export const NO_FILTER: Filter = { status: "", tool: "", q: "", from: "", to: "" };
export type CohortPreview = { matching: number; total: number } | { error: string } | null;

/** The filters typed in rather than picked, in the order they are shown. */
const TEXT_FILTERS: { field: Exclude<keyof Filter, "status">; label: string; type?: string; placeholder?: string }[] = [
  { field: "tool", label: "Tool used", placeholder: "e.g. lookup_order" },
  { field: "q", label: "Text", placeholder: "words in the session" },
  { field: "from", label: "Started on or after", type: "date" },
  { field: "to", label: "Started on or before", type: "date" },
];

/** The filters that are set, as the server takes them (empty ones left out). */
export function filterInput(f: Filter) {
  const set = Object.entries(f).filter(([, v]) => v.trim() !== "");
  // The status comes from the select's fixed options; the server checks every field again.
  return set.length > 0 ? (Object.fromEntries(set.map(([k, v]) => [k, v.trim()])) as CohortFilterInput) : undefined;
}

/** The count before starting: how many sessions the filters keep (asked again as they change). */
export function useCohortPreview(agentVersionId: string, filter: Filter, filtered: boolean): CohortPreview {
  const [preview, setPreview] = useState<CohortPreview>(null);
  useEffect(() => {
    if (!agentVersionId || !filtered) {
      setPreview(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      void previewCohortAction({ agentVersionId, filter: filterInput(filter) }).then((result) => {
        if (!current) return;
        // A bad filter is named by its field's message (the dates' order, their format).
        const named = result.ok ? undefined : Object.values(result.error.fieldErrors).flat()[0];
        setPreview(result.ok ? result.data : { error: named ?? result.error.message });
      });
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [agentVersionId, filter, filtered]);
  return preview;
}

/** "Which sessions": the session browser's filters over the cohort, and how many sessions they keep. */
export function CohortFilterFields({
  filter,
  onChange,
  filtered,
  preview,
  children,
}: {
  filter: Filter;
  onChange: (update: (f: Filter) => Filter) => void;
  filtered: boolean;
  preview: CohortPreview;
  /** The filter's errors from the server. */
  children?: ReactNode;
}) {
  const setField = (key: keyof Filter) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    onChange((f) => ({ ...f, [key]: e.target.value }));
  return (
    <fieldset className="rounded-md border border-slate-200 px-3 pt-1 pb-3 text-sm">
      <legend className="px-1 font-medium text-slate-900">Which sessions</legend>
      <p className="text-xs text-slate-500">
        All of the cohort, or only the sessions these filters keep (the session browser&apos;s filters).
      </p>
      <div className="mt-2 grid grid-cols-1 gap-3 sm:grid-cols-3">
        <label className="block">
          <span className="text-xs font-medium text-slate-700">Status</span>
          <select
            value={filter.status}
            onChange={setField("status")}
            className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
          >
            <option value="">any</option>
            <StatusOptions />
          </select>
        </label>
        {TEXT_FILTERS.map(({ field, label, type, placeholder }) => (
          <label key={field} className="block">
            <span className="text-xs font-medium text-slate-700">{label}</span>
            <input
              type={type}
              value={filter[field]}
              onChange={setField(field)}
              placeholder={placeholder}
              className="mt-1 block w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            />
          </label>
        ))}
      </div>
      {filtered ? (
        <p className="mt-2 text-sm text-slate-700" data-testid="cohort-matching" role="status">
          {preview === null
            ? "Counting…"
            : "error" in preview
              ? preview.error
              : `${preview.matching} of ${preview.total} session${preview.total === 1 ? "" : "s"} match.`}
        </p>
      ) : null}
      {children}
    </fieldset>
  );
}
