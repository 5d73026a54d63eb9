/**
 * Investigations: searches that answer "which step decided this failure?" and
 * "which of my edits are actually needed?" by running many replays. The
 * searches are pure: each replay (a probe) is an injected async function, so
 * the server decides how probes run (jobs, trials, checks) and this module
 * decides which probes to run and what their answers mean.
 */

/** What one probe found: how many of its trials passed the outcome checks. */
export interface ProbeOutcome {
  passes: number;
  trials: number;
}

/** A probe as the search saw it, in the order the probes ran. */
export interface BlameProbe extends ProbeOutcome {
  /** Index into the candidate steps. */
  index: number;
  /** The candidate step itself (the caller's step identifier, e.g. a model step's seq). */
  step: number;
  passRate: number;
  /** passRate reached the share the analyst asked for: forking here fixes the run. */
  fixes: boolean;
}

export interface BlameSearch {
  /** Fork points in the order they happen in the run (e.g. the seqs of its model steps). At least one. */
  steps: readonly number[];
  /** Share of a probe's trials that must pass for forking there to count as a fix, in (0, 1]. */
  share: number;
  /** Replays the run with the model live from `step` on (everything before it as recorded). */
  probe: (step: number) => Promise<ProbeOutcome>;
  /** Told of each probe as it finishes (progress). */
  onProbe?: (probe: BlameProbe) => void;
  /** Checked before each probe; true stops the search with what it has. */
  isCancelled?: () => boolean;
}

export type BlameResult =
  /** Forking at `step` fixes the run, forking at the next candidate (or never) does not: the failure is decided there. */
  | { kind: "decided"; step: number; index: number; probes: BlameProbe[] }
  /** Even with the model live from the first candidate the run does not pass: re-running the model does not fix it. */
  | { kind: "not_fixable"; probes: BlameProbe[] }
  | { kind: "cancelled"; probes: BlameProbe[] };

/**
 * Most probes a blame search over `steps` candidates runs: the first step, then a bisection of the rest
 * (1 + ⌈log₂ n⌉). With the trials per probe and the live calls a trial may make, this bounds the cost up front.
 */
export function blameProbeBound(steps: number): number {
  if (!Number.isInteger(steps) || steps < 0) throw new RangeError(`blameProbeBound: need a step count, got ${steps}`);
  return steps === 0 ? 0 : 1 + Math.ceil(Math.log2(steps));
}

/**
 * Finds the step that decided a failure by bisection. Forking live at an early step gives the model every
 * decision back; forking after the deciding step leaves the wrong decision recorded. So "forking at step i
 * fixes the run" holds up to the deciding step and not after it (the run without any fork is the failing base),
 * and the search looks for that boundary: it probes the first step (if that does not fix, nothing will), then
 * bisects, running at most `blameProbeBound(steps.length)` probes rather than one per step.
 */
export async function searchBlame(search: BlameSearch): Promise<BlameResult> {
  const { steps, share } = search;
  if (steps.length === 0) throw new RangeError("searchBlame: the run has no step to fork at");
  if (!(share > 0 && share <= 1)) throw new RangeError(`searchBlame: share must be in (0, 1], got ${share}`);
  const probes: BlameProbe[] = [];
  const run = async (index: number): Promise<boolean | null> => {
    if (search.isCancelled?.()) return null;
    const step = steps[index]!;
    const outcome = await search.probe(step);
    if (
      !Number.isInteger(outcome.trials) ||
      outcome.trials < 1 ||
      outcome.passes < 0 ||
      outcome.passes > outcome.trials
    )
      throw new RangeError(`searchBlame: probe at step ${step} gave ${outcome.passes} passes of ${outcome.trials}`);
    const passRate = outcome.passes / outcome.trials;
    const probe: BlameProbe = { ...outcome, index, step, passRate, fixes: passRate >= share };
    probes.push(probe);
    search.onProbe?.(probe);
    return probe.fixes;
  };

  const first = await run(0);
  if (first === null) return { kind: "cancelled", probes };
  if (!first) return { kind: "not_fixable", probes };
  // Invariant: forking at `fixing` fixes the run; forking at `failing` does not (steps.length: no fork at all).
  let fixing = 0;
  let failing = steps.length;
  while (failing - fixing > 1) {
    const middle = Math.floor((fixing + failing) / 2);
    const fixes = await run(middle);
    if (fixes === null) return { kind: "cancelled", probes };
    if (fixes) fixing = middle;
    else failing = middle;
  }
  return { kind: "decided", step: steps[fixing]!, index: fixing, probes };
}

/** A ddmin probe: which of the edits it kept (indices into the full list, ascending) and whether that fixed the run. */
export interface MinimizeProbe {
  kept: number[];
  fixes: boolean;
}

export interface MinimizeSearch {
  /** How many edits the full set has (the probes name edits by their index). At least one. */
  count: number;
  /** Replays the run with only these edits (indices, ascending); true when the outcome checks pass. */
  test: (kept: readonly number[]) => Promise<boolean>;
  onProbe?: (probe: MinimizeProbe) => void;
  isCancelled?: () => boolean;
}

export type MinimizeResult =
  /** `kept` fixes the run and removing any one of its edits does not (1-minimal). */
  | { kind: "minimal"; kept: number[]; probes: MinimizeProbe[] }
  /** The full set of edits does not fix the run: there is nothing to minimise. */
  | { kind: "not_fixing"; probes: MinimizeProbe[] }
  | { kind: "cancelled"; kept: number[]; probes: MinimizeProbe[] };

/**
 * The smallest fixing change: Zeller and Hildebrandt's ddmin over a set of edits that together fix a run. It
 * tries halves, then complements, refining the granularity until removing any single edit breaks the fix, so the
 * result is 1-minimal. Each distinct subset is tested once (answers are cached), and the empty set is never
 * tested: without edits the run is the failing base.
 */
export async function minimizeEdits(search: MinimizeSearch): Promise<MinimizeResult> {
  const { count } = search;
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`minimizeEdits: need at least one edit, got ${count}`);
  const probes: MinimizeProbe[] = [];
  const known = new Map<string, boolean>();
  const test = async (kept: number[]): Promise<boolean | null> => {
    const key = kept.join(",");
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    if (search.isCancelled?.()) return null;
    const fixes = await search.test(kept);
    known.set(key, fixes);
    const probe = { kept, fixes };
    probes.push(probe);
    search.onProbe?.(probe);
    return fixes;
  };

  let current = Array.from({ length: count }, (_, i) => i);
  const all = await test(current);
  if (all === null) return { kind: "cancelled", kept: current, probes };
  if (!all) return { kind: "not_fixing", probes };
  let granularity = 2;
  while (current.length >= 2) {
    const parts = split(current, granularity);
    let reduced = false;
    for (const part of parts) {
      const fixes = await test(part);
      if (fixes === null) return { kind: "cancelled", kept: current, probes };
      if (fixes) {
        current = part;
        granularity = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && granularity > 2) {
      for (const part of parts) {
        const complement = current.filter((i) => !part.includes(i));
        const fixes = await test(complement);
        if (fixes === null) return { kind: "cancelled", kept: current, probes };
        if (fixes) {
          current = complement;
          granularity = Math.max(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (granularity >= current.length) break;
    granularity = Math.min(granularity * 2, current.length);
  }
  return { kind: "minimal", kept: current, probes };
}

/** `items` in `parts` contiguous, nearly equal pieces (none empty). */
function split(items: number[], parts: number): number[][] {
  const out: number[][] = [];
  let start = 0;
  for (let p = 0; p < parts; p++) {
    const end = start + Math.floor((items.length - start) / (parts - p));
    out.push(items.slice(start, end));
    start = end;
  }
  return out.filter((part) => part.length > 0);
}
