"use client";

import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { STEPS_BY_SOURCE_WORDS } from "@/lib/comparison-words";
import type { ActionResult } from "@/lib/http/action";
import {
  VALIDITY_DESCRIPTIONS,
  ValidityLabel,
  type ReportSections,
  type ReportSectionsInput,
} from "@/lib/reports/sections";
import { pinnedIds, type PairChoice } from "@/lib/reports/pair-choice";
import { Markdown } from "./Markdown";
import { PairPicker, type PairPickerProps } from "./PairPicker";
import { StrengthBadge } from "./ValidityBadge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { TabPanel, Tabs } from "@/components/ui/Tabs";
import { useActionForm } from "@/components/ui/useActionForm";
import { ActionError } from "./ActionError";

export interface ReportFormProps {
  replayId: string;
  defaultTitle: string;
  policy: { document: unknown; hash: string; versionLabel: string };
  evidence: {
    strength: string;
    comparability: string | null;
    stepsBySource: Record<string, number>;
    fixtureCount: number;
    liveCallCount: number;
    firstDivergence: string | null;
  };
  /** What the pair picker opens on (it reads the other pairs a window at a time), and the pairs pinned already. */
  picker: Pick<PairPickerProps, "version" | "counts" | "window" | "firstDivergence" | "initial" | "dropped"> & {
    pinned: PairChoice[];
  };
  suggestion: { label: ValidityLabel; reasons: string[] };
  /** Saves a new draft, or (with `draft`) the edited one; the report's id comes back. */
  save:
    | {
        kind: "create";
        action: (input: {
          replayId: string;
          title: string;
          sections: ReportSectionsInput;
        }) => Promise<ActionResult<{ id: string }>>;
      }
    | {
        kind: "edit";
        /** The draft being edited. */
        draft: { id: string; title: string; sections: ReportSections };
        action: (input: {
          reportId: string;
          title: string;
          sections: ReportSectionsInput;
        }) => Promise<ActionResult<{ id: string }>>;
      };
}

type TextKey = "finding" | "scope" | "observedBaseline" | "hypothesis" | "nextActions";

const TEXT_FIELDS: { key: TextKey; label: string; hint: string }[] = [
  { key: "finding", label: "Finding", hint: "What went wrong, in one or two sentences." },
  { key: "scope", label: "Scope", hint: "Which runs, agents, versions or users this applies to." },
  { key: "observedBaseline", label: "Observed baseline", hint: "What the recorded run did." },
  { key: "hypothesis", label: "Hypothesis", hint: "Why you think it happened, and what the branch tested." },
  { key: "nextActions", label: "Next actions", hint: "Fixes, owners, follow-up replays." },
];

/** A section the report takes from the replay as it is (the author cannot leave it out or edit it). */
function FilledCard({ id, title, children }: { id: string; title: string; children: ReactNode }) {
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

function MarkdownField({
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

/**
 * The report form, for a new draft or for editing one: the analyst's sections,
 * pinned steps and validity; Policy and Evidence come from the replay.
 */
export function ReportForm(props: ReportFormProps) {
  const router = useRouter();
  const initial = props.save.kind === "edit" ? props.save.draft : undefined;
  const [title, setTitle] = useState(initial?.title ?? props.defaultTitle);
  const [text, setText] = useState<Record<TextKey, string>>({
    finding: initial?.sections.finding ?? "",
    scope: initial?.sections.scope ?? "",
    observedBaseline: initial?.sections.observedBaseline ?? "",
    hypothesis: initial?.sections.hypothesis ?? "",
    nextActions: initial?.sections.nextActions ?? "",
  });
  const [validity, setValidity] = useState<ValidityLabel>(initial?.sections.validity ?? props.suggestion.label);
  const [validityNote, setValidityNote] = useState(initial?.sections.validityNote ?? "");
  // By pair id, with what the summary shows of each: pins stay whichever filter or window is on screen.
  const [pinned, setPinned] = useState<ReadonlyMap<string, PairChoice>>(
    () => new Map(props.picker.pinned.map((p) => [p.id, p])),
  );
  const { pending, error, run } = useActionForm({ refresh: false });

  const submit = () => {
    const sections: ReportSectionsInput = {
      ...text,
      validity,
      validityNote,
      pinnedPairs: pinnedIds(pinned.values(), props.picker.firstDivergence),
    };
    run(
      () =>
        props.save.kind === "edit"
          ? props.save.action({ reportId: props.save.draft.id, title, sections })
          : props.save.action({ replayId: props.replayId, title, sections }),
      (data) => router.push(`/reports/${data.id}`),
    );
  };

  const fieldError = (path: string) => error?.fields[path]?.[0];

  return (
    <form
      className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_24rem]"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="space-y-4">
        <Card as="div">
          <label htmlFor="report-title" className="text-sm font-semibold text-slate-900">
            Title
          </label>
          <input
            id="report-title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            maxLength={200}
            className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
          />
          {fieldError("title") ? <p className="mt-1 text-xs text-rose-700">{fieldError("title")}</p> : null}
        </Card>
        {TEXT_FIELDS.slice(0, 4).map((f) => (
          <MarkdownField
            key={f.key}
            id={`section-${f.key}`}
            label={f.label}
            hint={f.hint}
            value={text[f.key]}
            onChange={(v) => setText((t) => ({ ...t, [f.key]: v }))}
            error={fieldError(`sections.${f.key}`)}
          />
        ))}

        <FilledCard id="policy-heading" title="Policy">
          <p className="mt-1 mb-2 text-xs text-slate-600">
            {props.policy.versionLabel} · hash <code className="font-mono break-all">{props.policy.hash}</code>
          </p>
          <JsonBlock value={props.policy.document} />
        </FilledCard>

        <FilledCard id="evidence-heading" title="Evidence">
          <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
            <StrengthBadge strength={props.evidence.strength} />
            <Badge>{props.evidence.comparability?.replaceAll("_", " ") ?? "comparability unknown"}</Badge>
            <span className="text-slate-600">{STEPS_BY_SOURCE_WORDS}:</span>
            {Object.entries(props.evidence.stepsBySource)
              .filter(([, n]) => n > 0)
              .map(([k, n]) => (
                <Badge key={k}>
                  {k} {n}
                </Badge>
              ))}
            <span className="text-slate-600">
              {props.evidence.fixtureCount} fixture{props.evidence.fixtureCount === 1 ? "" : "s"},{" "}
              {props.evidence.liveCallCount} live call{props.evidence.liveCallCount === 1 ? "" : "s"}
            </span>
          </div>
          <p className="mt-2 text-sm text-slate-700">
            {props.evidence.firstDivergence ?? "No divergence: the branch equals the base run."}
          </p>
          <h3 className="mt-4 mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">
            Pin steps into the report
          </h3>
          <p className="mb-2 text-xs text-slate-500">
            The first divergence is always included. Pinned pairs are frozen with both sides.
          </p>
          <PairPicker
            replayId={props.replayId}
            {...props.picker}
            pinned={pinned}
            onPin={(pair, pin) =>
              setPinned((current) => {
                const next = new Map(current);
                if (pin) next.set(pair.id, pair);
                else next.delete(pair.id);
                return next;
              })
            }
          />
          {fieldError("sections.pinnedPairs") ? (
            <p className="mt-1 text-xs text-rose-700">{fieldError("sections.pinnedPairs")}</p>
          ) : null}
        </FilledCard>

        <MarkdownField
          id="section-nextActions"
          label="Next actions"
          hint={TEXT_FIELDS[4]!.hint}
          value={text.nextActions}
          onChange={(v) => setText((t) => ({ ...t, nextActions: v }))}
          error={fieldError("sections.nextActions")}
        />
      </div>

      <div className="space-y-4 lg:sticky lg:top-4 lg:self-start">
        <Card aria-labelledby="validity-heading">
          <h2 id="validity-heading" className="text-sm font-semibold text-slate-900">
            Validity
          </h2>
          <p className="mt-1 text-xs text-slate-600">
            Suggested: <span className="font-medium">{props.suggestion.label.replaceAll("_", " ")}</span> —{" "}
            {props.suggestion.reasons.join(" ")}
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
                  onChange={() => setValidity(label)}
                  className="mt-1"
                />
                <span>
                  <span className="font-medium">{label.replaceAll("_", " ")}</span>
                  {label === props.suggestion.label ? (
                    <span className="ml-1 text-xs text-indigo-700">(suggested)</span>
                  ) : null}
                  <span className="block text-xs text-slate-500">{VALIDITY_DESCRIPTIONS[label]}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <label htmlFor="validity-note" className="mt-3 block text-xs text-slate-500">
            Why (optional, Markdown)
          </label>
          <textarea
            id="validity-note"
            value={validityNote}
            onChange={(e) => setValidityNote(e.target.value)}
            rows={2}
            className="mt-1 w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
          />
        </Card>
        <Card as="div">
          <p className="text-xs text-slate-600">
            The report is saved as a draft: you can edit or delete it until you publish it. Publishing needs a Finding
            and freezes the report as a snapshot; only a published report can be shared.
          </p>
          <ActionError error={error} />
          <Button type="submit" disabled={pending} className="mt-3 w-full">
            {pending ? "Saving…" : initial ? "Save draft" : "Save as draft"}
          </Button>
        </Card>
      </div>
    </form>
  );
}
