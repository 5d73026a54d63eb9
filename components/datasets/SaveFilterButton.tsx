"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { plural } from "@/lib/format";
import { DatasetOutcomeNotice, SaveDatasetForm, type DatasetOutcome } from "./DatasetForms";

/**
 * "Save this filter as a dataset": the sessions the list's filters match now are frozen into a new dataset (those
 * imported later are not added). Past the cap it holds the newest imported, and says so before and after.
 */
export function SaveFilterButton({
  filter,
  matching,
  max,
}: {
  filter: Record<string, string>;
  matching: number;
  max: number;
}) {
  const [open, setOpen] = useState(false);
  const [outcome, setOutcome] = useState<DatasetOutcome | null>(null);
  return (
    <div className="w-full space-y-2 sm:w-auto">
      <Button variant="link" size="inline" className="text-sm" aria-expanded={open} onClick={() => setOpen(!open)}>
        Save this filter as a dataset…
      </Button>
      {open ? (
        <div className="rounded-md border border-slate-200 bg-slate-50 p-3" data-testid="save-filter">
          <p className="mb-2 text-xs text-slate-700">
            {matching > max
              ? `The filter matches ${matching} sessions; a dataset holds at most ${max}, so it will hold the ${max} imported most recently.`
              : `The ${plural(matching, "session")} the filter matches now; sessions imported later are not added.`}
          </p>
          <SaveDatasetForm
            source={{ filter }}
            onDone={(o) => {
              setOutcome(o);
              setOpen(false);
            }}
            onCancel={() => setOpen(false)}
          />
        </div>
      ) : null}
      {outcome ? <DatasetOutcomeNotice outcome={outcome} /> : null}
    </div>
  );
}
