import type { SessionEvent } from "./events";
import type { BranchLogEntry, FixtureEntry } from "./log";
import type { Comparability, Evidence, EvidenceStrength, ReplayStatus, ReplayStep } from "./replay-types";
import type { StepSource } from "./resolve-types";

const ALL_SOURCES: StepSource[] = [
  "recorded",
  "static",
  "fixture",
  "provider_fixture",
  "live",
  "llm",
  "error_result",
  "blocked",
  "edit",
];

/** Model and tool steps per source, and the fixtures the branch used (with their author and note). */
export function stepsEvidence(
  steps: readonly ReplayStep[],
  log: readonly BranchLogEntry[] | undefined,
): { stepsBySource: Record<StepSource, number>; fixturesUsed: Evidence["fixturesUsed"] } {
  const fixturesUsed: Evidence["fixturesUsed"] = [];
  const fixtureById = new Map<string, FixtureEntry>();
  for (const e of log ?? []) if (e.type === "fixture") fixtureById.set(e.id, e);
  const stepsBySource = Object.fromEntries(ALL_SOURCES.map((s) => [s, 0])) as Record<StepSource, number>;
  for (const step of steps) {
    if (step.kind === "model_call" || step.kind === "tool_call") stepsBySource[step.source]++;
    if (step.fixtureId) {
      const f = fixtureById.get(step.fixtureId);
      if (f)
        fixturesUsed.push({
          step: step.seq,
          tool: step.name,
          fixtureId: f.id,
          author: f.author,
          note: f.note,
          at: f.at,
        });
    }
  }
  return { stepsBySource, fixturesUsed };
}

/** How strong the branch's evidence is: the weakest source that answered decides. */
export function strengthOf(
  stepsBySource: Readonly<Record<StepSource, number>>,
  drifting: boolean,
  probes: number,
): EvidenceStrength {
  if (drifting) return "drifting";
  if (stepsBySource.live > 0 || probes > 0) return "live";
  if (stepsBySource.llm > 0 || stepsBySource.provider_fixture > 0) return "simulated";
  if (stepsBySource.static > 0 || stepsBySource.fixture > 0) return "controlled";
  return "recorded";
}

/**
 * Event signature for alignment (kind, name, cache key). A model
 * call is identified by its kind alone: under `compatible-live` the model id
 * is what changed, and the steps still correspond.
 */
export function signatureOf(event: Pick<SessionEvent, "kind" | "name" | "cacheKey">): string {
  if (event.kind === "model_call") return "model_call";
  return `${event.kind}\u0000${event.name}\u0000${event.cacheKey ?? ""}`;
}

/** How comparable a finished replay is with its base: exact, aligned, diverged but comparable, or not comparable. */
export function comparabilityOf(
  status: ReplayStatus,
  steps: readonly ReplayStep[],
  base: readonly SessionEvent[],
): Comparability {
  const sameLength = steps.length === base.length;
  if (status === "completed" && sameLength && steps.every((s, k) => s.equalsBase && s.baseSeq === base[k]!.seq))
    return "exact";
  if (status !== "completed") return "non_comparable";
  if (sameLength && steps.every((s, k) => signatureOf(s) === signatureOf(base[k]!))) return "aligned";
  return "diverged_but_comparable";
}
