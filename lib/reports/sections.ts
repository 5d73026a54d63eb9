import { z } from "zod";

/** The validity labels: how far the replay supports the finding. */
export const ValidityLabel = z.enum([
  "confirmed_by_replay",
  "sensitive_to_fixture",
  "model_nondeterministic",
  "diverged_but_comparable",
  "non_comparable",
  "unsupported",
]);
export type ValidityLabel = z.infer<typeof ValidityLabel>;

export const VALIDITY_DESCRIPTIONS: Record<ValidityLabel, string> = {
  confirmed_by_replay: "The replay reproduces the finding from recorded evidence.",
  sensitive_to_fixture: "The outcome depends on an analyst-supplied fixture at or before the first divergence.",
  model_nondeterministic: "Model steps vary between runs; the finding may not reproduce.",
  diverged_but_comparable: "The branch took a different path but both runs reached a terminal state.",
  non_comparable: "The branch stopped, failed or paused before a terminal state.",
  unsupported: "The replay does not support the finding (simulated or unsupported evidence).",
};

const text = (max: number) => z.string().max(max).default("");

/**
 * The analyst's sections of a report. Policy and Evidence are not here: they
 * are filled from the replay into the snapshot and cannot be edited away.
 */
export const ReportSections = z.object({
  finding: text(20_000),
  scope: text(20_000),
  observedBaseline: text(20_000),
  hypothesis: text(20_000),
  validity: ValidityLabel,
  validityNote: text(4_000),
  nextActions: text(20_000),
  /** Ids of aligned pairs of the comparison pinned into the report. */
  pinnedPairs: z.array(z.string().min(1).max(200)).max(100).default([]),
});
export type ReportSections = z.infer<typeof ReportSections>;

/** What callers send: every section optional; validity defaults to the suggestion. */
export const ReportSectionsInput = ReportSections.extend({ validity: ValidityLabel.optional() });
export type ReportSectionsInput = z.input<typeof ReportSectionsInput>;

export const ReportTitle = z.string().trim().min(1, "Give the report a title.").max(200);

export const MARKDOWN_SECTIONS = [
  { key: "finding", label: "Finding" },
  { key: "scope", label: "Scope" },
  { key: "observedBaseline", label: "Observed baseline" },
  { key: "hypothesis", label: "Hypothesis" },
] as const satisfies readonly { key: keyof ReportSections; label: string }[];
