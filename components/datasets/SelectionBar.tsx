"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { plural } from "@/lib/format";
import {
  AddToDatasetForm,
  DatasetOutcomeNotice,
  SaveDatasetForm,
  type DatasetOption,
  type DatasetOutcome,
} from "./DatasetForms";

/**
 * The bar that stays at the bottom of the screen while sessions are chosen in the list: how many, and what to do
 * with them (save them as a new dataset, add them to one). What was done stays in it, with the way to the dataset.
 */
export function SelectionBar({
  selected,
  datasets,
  onClear,
}: {
  selected: string[];
  datasets: readonly DatasetOption[];
  onClear: () => void;
}) {
  const [open, setOpen] = useState<"save" | "add" | null>(null);
  const [outcome, setOutcome] = useState<DatasetOutcome | null>(null);
  if (selected.length === 0 && !outcome) return null;
  const done = (o: DatasetOutcome) => {
    setOutcome(o);
    setOpen(null);
    onClear();
  };
  return (
    <section
      aria-label="Chosen sessions"
      className="sticky bottom-0 z-20 mt-3 space-y-2 rounded-t-lg border border-slate-300 bg-white px-3 py-2 shadow-lg"
      data-testid="selection-bar"
    >
      {outcome ? <DatasetOutcomeNotice outcome={outcome} /> : null}
      {selected.length > 0 ? (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="font-medium text-slate-900" aria-live="polite">
            {plural(selected.length, "session")} selected:
          </span>
          <Button
            size="sm"
            variant={open === "save" ? "primary" : "secondary"}
            aria-expanded={open === "save"}
            onClick={() => setOpen(open === "save" ? null : "save")}
          >
            Save as dataset…
          </Button>
          <Button
            size="sm"
            variant={open === "add" ? "primary" : "secondary"}
            aria-expanded={open === "add"}
            onClick={() => setOpen(open === "add" ? null : "add")}
          >
            Add to dataset…
          </Button>
          <Button size="sm" variant="ghost" onClick={onClear}>
            Clear selection
          </Button>
        </div>
      ) : (
        <Button size="sm" variant="ghost" onClick={() => setOutcome(null)}>
          Dismiss
        </Button>
      )}
      {open === "save" && selected.length > 0 ? (
        <SaveDatasetForm source={{ sessionIds: selected }} onDone={done} onCancel={() => setOpen(null)} />
      ) : null}
      {open === "add" && selected.length > 0 ? (
        <AddToDatasetForm sessionIds={selected} datasets={datasets} onDone={done} onCancel={() => setOpen(null)} />
      ) : null}
    </section>
  );
}
