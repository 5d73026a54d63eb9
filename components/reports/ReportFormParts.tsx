"use client";

import { useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { TextAreaField } from "@/components/ui/Field";
import { TabPanel, Tabs } from "@/components/ui/Tabs";
import { STEPS_BY_SOURCE_WORDS } from "@/lib/comparison-words";
import { VALIDITY_DESCRIPTIONS, ValidityLabel } from "@/lib/reports/sections";
import type { PairChoice } from "@/lib/reports/pair-choice";
import { Markdown } from "./Markdown";
import { PairPicker, type PairPickerProps } from "./PairPicker";
import { StrengthBadge } from "./ValidityBadge";

/** What the replay shows, filled into the report's Evidence section. */
export type ReportEvidence = {
  strength: string;
  comparability: string | null;
  stepsBySource: Record<string, number>;
  fixtureCount: number;
  liveCallCount: number;
  firstDivergence: string | null;
};
/** What the pair picker opens on, and the pairs pinned already. */
export type ReportPicker = Pick<
  PairPickerProps,
  "version" | "counts" | "window" | "firstDivergence" | "initial" | "dropped"
> & {
  pinned: PairChoice[];
};
export type ValiditySuggestion = { label: ValidityLabel; reasons: string[] };

/** A section the report takes from the replay as it is (the author cannot leave it out or edit it). */
export function FilledCard({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card aria-labelledby={id}>
      <div className="flex items-baseline justify-between">
        <h2 id={id} className="text-sm font-semibold text-slate-900">
          {title}
        </h2>
        <span className="text-xs text-slate-500">filled from the replay · always included</span>
      </div>
      {children}
    </Card>
  );
}

/** A section the analyst writes in Markdown, with a preview tab. */
export function MarkdownField({
  id,
  label,
  hint,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const [preview, setPreview] = useState(false);
  return (
    <Card as="div">
      <div className="mb-1 flex items-center justify-between gap-2">
        <label htmlFor={id} className="text-sm font-semibold text-slate-900">
          {label}
        </label>
        <Tabs
          id={`${id}-editor`}
          label={`${label} editor`}
          look="quiet"
          tabs={[
            { value: "write", label: "Write" },
            { value: "preview", label: "Preview" },
          ]}
          selected={preview ? "preview" : "write"}
          onSelect={(t) => setPreview(t === "preview")}
        />
      </div>
      <p className="mb-2 text-xs text-slate-500">{hint} Markdown; raw HTML and images are not rendered.</p>
      <TabPanel id={`${id}-editor`} value={preview ? "preview" : "write"}>
        {preview ? (
          <div className="min-h-24 rounded-md border border-slate-200 px-3 py-1" data-testid={`${id}-preview`}>
            <Markdown text={value} empty="Nothing to preview." />
          </div>
        ) : (
          <textarea
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={4}
            className="w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-sm"
          />
        )}
      </TabPanel>
      {error ? <p className="mt-1 text-xs text-rose-700">{error}</p> : null}
    </Card>
  );
}

/** The Evidence section: what the replay shows (filled from it), and the pairs to pin into the report. */
export function EvidenceCard({
  evidence,
  replayId,
  picker,
  pinned,
  onPin,
  error,
}: {
  evidence: ReportEvidence;
  replayId: string;
  picker: ReportPicker;
  pinned: ReadonlyMap<string, PairChoice>;
  onPin: (pair: PairChoice, pin: boolean) => void;
  error: string | undefined;
}) {
  return (
    <FilledCard id="evidence-heading" title="Evidence">
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
        <StrengthBadge strength={evidence.strength} />
        <Badge>{evidence.comparability?.replaceAll("_", " ") ?? "comparability unknown"}</Badge>
        <span className="text-slate-600">{STEPS_BY_SOURCE_WORDS}:</span>
        {Object.entries(evidence.stepsBySource)
          .filter(([, n]) => n > 0)
          .map(([k, n]) => (
            <Badge key={k}>
              {k} {n}
            </Badge>
          ))}
        <span className="text-slate-600">
          {evidence.fixtureCount} fixture{evidence.fixtureCount === 1 ? "" : "s"}, {evidence.liveCallCount} live call
          {evidence.liveCallCount === 1 ? "" : "s"}
        </span>
      </div>
      <p className="mt-2 text-sm text-slate-700">
        {evidence.firstDivergence ?? "No divergence: the branch equals the base run."}
      </p>
      <h3 className="mt-4 mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">
        Pin steps into the report
      </h3>
      <p className="mb-2 text-xs text-slate-500">
        The first divergence is always included. Pinned pairs are frozen with both sides.
      </p>
      <PairPicker replayId={replayId} {...picker} pinned={pinned} onPin={onPin} />
      {error ? <p className="mt-1 text-xs text-rose-700">{error}</p> : null}
    </FilledCard>
  );
}

/** The validity label (the suggested one marked, with why) and the analyst's note on it. */
export function ValidityCard({
  suggestion,
  validity,
  onValidity,
  note,
  onNote,
}: {
  suggestion: ValiditySuggestion;
  validity: ValidityLabel;
  onValidity: (label: ValidityLabel) => void;
  note: string;
  onNote: (note: string) => void;
}) {
  return (
    <Card aria-labelledby="validity-heading">
      <h2 id="validity-heading" className="text-sm font-semibold text-slate-900">
        Validity
      </h2>
      <p className="mt-1 text-xs text-slate-600">
        Suggested: <span className="font-medium">{suggestion.label.replaceAll("_", " ")}</span> —{" "}
        {suggestion.reasons.join(" ")}
      </p>
      <fieldset className="mt-3 space-y-1.5">
        <legend className="sr-only">Validity label</legend>
        {ValidityLabel.options.map((label) => (
          <label key={label} className="flex cursor-pointer items-start gap-2 text-sm">
            <input
              type="radio"
              name="validity"
              value={label}
              checked={validity === label}
              onChange={() => onValidity(label)}
              className="mt-1"
            />
            <span>
              <span className="font-medium">{label.replaceAll("_", " ")}</span>
              {label === suggestion.label ? <span className="ml-1 text-xs text-indigo-700">(suggested)</span> : null}
              <span className="block text-xs text-slate-500">{VALIDITY_DESCRIPTIONS[label]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <TextAreaField label="Why (optional, Markdown)" className="mt-3" value={note} onValue={onNote} rows={2} />
    </Card>
  );
}
