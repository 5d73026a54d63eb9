import { Badge, type Tone } from "@/components/ui/Badge";
import { VALIDITY_DESCRIPTIONS, type ValidityLabel } from "@/lib/reports/sections";

const TONES: Record<ValidityLabel, Tone> = {
  confirmed_by_replay: "good",
  sensitive_to_fixture: "warn",
  model_nondeterministic: "warn",
  diverged_but_comparable: "info",
  non_comparable: "bad",
  unsupported: "bad",
};

export function ValidityBadge({ label }: { label: ValidityLabel }) {
  return (
    <Badge tone={TONES[label]} title={VALIDITY_DESCRIPTIONS[label]}>
      {label.replaceAll("_", " ")}
    </Badge>
  );
}

const STRENGTH_TONES: Record<string, Tone> = {
  recorded: "good",
  controlled: "info",
  simulated: "warn",
  live: "warn",
  drifting: "bad",
};

export function StrengthBadge({ strength }: { strength: string }) {
  return <Badge tone={STRENGTH_TONES[strength] ?? "neutral"}>{strength}</Badge>;
}
