import { Badge, type Tone } from "@/components/ui/Badge";
import { INPUT_ONLY_LABEL } from "@/components/counterfactual/labels";
import { TYPE_LABEL, type CompareRow } from "@/lib/session-view/compare-rows";

const TYPE_TONE: Record<CompareRow["type"], Tone> = {
  equal: "neutral",
  changed: "warn",
  inserted: "good",
  removed: "bad",
  unreached: "neutral",
};

/** A pair's type in words: "input only" for a changed model call whose only difference is its input. */
export const pairTypeWord = (p: { type: CompareRow["type"]; inputOnly?: true }): string =>
  p.inputOnly ? "input only" : TYPE_LABEL[p.type];

/** A pair's type as a badge, the same on the comparison page and in the report form's picker. */
export function PairTypeBadge({ type, inputOnly }: { type: CompareRow["type"]; inputOnly?: true }) {
  return inputOnly ? (
    <Badge tone="neutral" title={INPUT_ONLY_LABEL}>
      input only
    </Badge>
  ) : (
    <Badge tone={TYPE_TONE[type]}>{TYPE_LABEL[type]}</Badge>
  );
}
