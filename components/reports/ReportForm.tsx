"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { JsonBlock } from "@/components/ui/JsonBlock";
import type { ActionResult } from "@/lib/http/action";
import { type ReportSections, type ReportSectionsInput, type ValidityLabel } from "@/lib/reports/sections";
import { pinnedIds, type PairChoice } from "@/lib/reports/pair-choice";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { TextField } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";
import { ActionError } from "./ActionError";
import {
  EvidenceCard,
  FilledCard,
  MarkdownField,
  ValidityCard,
  type ReportEvidence,
  type ReportPicker,
  type ValiditySuggestion,
} from "./ReportFormParts";

export interface ReportFormProps {
  replayId: string;
  defaultTitle: string;
  policy: { document: unknown; hash: string; versionLabel: string };
  evidence: ReportEvidence;
  /** What the pair picker opens on (it reads the other pairs a window at a time), and the pairs pinned already. */
  picker: ReportPicker;
  suggestion: ValiditySuggestion;
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
          <TextField
            label="Title"
            errors={error?.fields.title?.slice(0, 1)}
            value={title}
            onValue={setTitle}
            maxLength={200}
          />
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

        <EvidenceCard
          evidence={props.evidence}
          replayId={props.replayId}
          picker={props.picker}
          pinned={pinned}
          onPin={(pair, pin) =>
            setPinned((current) => {
              const next = new Map(current);
              if (pin) next.set(pair.id, pair);
              else next.delete(pair.id);
              return next;
            })
          }
          error={fieldError("sections.pinnedPairs")}
        />

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
        <ValidityCard
          suggestion={props.suggestion}
          validity={validity}
          onValidity={setValidity}
          note={validityNote}
          onNote={setValidityNote}
        />
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
