import { Badge } from "@/components/ui/Badge";

/**
 * Whether a run did its job (lib/sessions/outcome.ts), beside how its recording ended: "passed" and
 * "failed" are shown, with the reason on hover; a run nothing gives a verdict on shows nothing.
 */
export function OutcomeBadge({ outcome, reason }: { outcome: string | null; reason?: string | null }) {
  if (outcome !== "passed" && outcome !== "failed") return null;
  return (
    <span data-testid="outcome-badge" data-outcome={outcome}>
      <Badge tone={outcome === "passed" ? "good" : "bad"} {...(reason ? { title: reason } : {})}>
        {outcome === "passed" ? "task passed" : "task failed"}
      </Badge>
    </span>
  );
}
