/**
 * Evidence added to a report from outside its replay: an investigation's result (blame search, smallest fixing
 * change, stale recordings) or a policy's coverage of a replay or an experiment. Each item is frozen when it is
 * added, with the policy it ran under and that policy's hash, and names who added it. Pure: the builders take
 * what lib/server read and give the stored shape.
 */
import { policyHash, type Coverage, type Edit, type Policy } from "@/lib/replay";

export const EVIDENCE_KINDS = ["blame", "minimize", "stale", "coverage"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export interface EvidencePolicy {
  hash: string;
  document: Policy;
  /** A saved policy version, when the source ran one. */
  version: { policyName: string; version: number } | null;
}

interface Common {
  /** The session the source is about. */
  session: { id: string; label: string };
  /** The policy the source ran under (null for a stale check, which calls tools directly and runs no policy). */
  policy: EvidencePolicy | null;
  /** When the source finished (investigations) or the coverage was read. */
  at: string | null;
}

export interface BlameEvidence extends Common {
  kind: "blame";
  investigationId: string;
  checks: string[];
  trials: number;
  /** Share of a probe's trials that must pass for it to count as a fix. */
  share: number;
  /** null: re-running the model from its first step did not fix the run. */
  decided: { modelStep: number; baseSeq: number; stepName: string | null } | null;
  /** The branch forked at the deciding step. */
  branchReplayId: string | null;
  probes: { modelStep: number; baseSeq: number; passes: number; trials: number; fixes: boolean }[];
}

export interface MinimizeEvidence extends Common {
  kind: "minimize";
  investigationId: string;
  checks: string[];
  trials: number;
  share: number;
  /** The branch whose edits were minimised. */
  fromReplayId: string | null;
  edits: Edit[];
  /** The minimal edits (null: the edits together did not fix the run). */
  minimal: Edit[] | null;
  /** The saved replay that runs only the minimal edits. */
  savedReplayId: string | null;
  probes: { kept: number[]; passes: number; trials: number; fixes: boolean }[];
}

export interface StaleEvidence extends Common {
  kind: "stale";
  investigationId: string;
  counts: { stale: number; fresh: number; unchecked: number };
  records: { seq: number; tool: string; state: "stale" | "fresh" | "unchecked"; paths: string[]; ignored: string[] }[];
  volatile: string[];
  skipped: { tool: string; reason: string }[];
}

export interface CoverageEvidence extends Common {
  kind: "coverage";
  scope:
    { kind: "replay"; replayId: string } | { kind: "experiment"; experimentId: string; name: string; replays: number };
  tools: {
    tool: string;
    calls: number;
    bySource: Record<string, number>;
    misses: { reason: string; count: number; differingPaths: string[] }[];
    unused: number;
  }[];
}

export type EvidenceSnapshot = BlameEvidence | MinimizeEvidence | StaleEvidence | CoverageEvidence;

/** An item as a report holds it. */
export interface ReportEvidenceItem {
  id: string;
  kind: EvidenceKind;
  /** Who added it to the report. */
  addedBy: string | null;
  addedAt: string;
  policyHash: string | null;
  snapshot: EvidenceSnapshot;
}

export function evidencePolicy(
  document: Policy,
  version: EvidencePolicy["version"] = null,
  hash = policyHash(document),
): EvidencePolicy {
  return { hash, document, version };
}

/** What an investigation's page and API give (lib/server/investigations/investigations.ts `presentInvestigation`), structurally. */
export interface InvestigationSource {
  id: string;
  kind: "blame" | "minimize" | "stale";
  status: string;
  replayId: string | null;
  params: {
    checks: unknown[];
    trials: number;
    share: number;
    policy: Policy;
    edits?: Edit[];
    volatile?: string[];
    skipped?: { tool: string; reason: string }[];
  };
  probes: unknown[];
  result: unknown;
  finishedAt: string | null;
}

/**
 * The frozen evidence of a finished investigation. `checks` are the names of its outcome checks; `stepName` names
 * a base step (by seq) in a few words.
 */
export function investigationEvidence(
  inv: InvestigationSource,
  context: { session: { id: string; label: string }; checks: string[]; stepName: (seq: number) => string | null },
): EvidenceSnapshot {
  const { session, stepName } = context;
  const common = { session, at: inv.finishedAt };
  if (inv.kind === "stale") {
    const records = inv.probes as StaleEvidence["records"];
    const count = (state: StaleEvidence["records"][number]["state"]) => records.filter((r) => r.state === state).length;
    return {
      kind: "stale",
      ...common,
      policy: null,
      investigationId: inv.id,
      counts: { stale: count("stale"), fresh: count("fresh"), unchecked: count("unchecked") },
      records: records.map((r) => ({ seq: r.seq, tool: r.tool, state: r.state, paths: r.paths, ignored: r.ignored })),
      volatile: inv.params.volatile ?? [],
      skipped: inv.params.skipped ?? [],
    };
  }
  const policy = evidencePolicy(inv.params.policy);
  const shared = {
    ...common,
    policy,
    investigationId: inv.id,
    checks: context.checks,
    trials: inv.params.trials,
    share: inv.params.share,
  };
  if (inv.kind === "blame") {
    const r = inv.result as { kind?: string; modelStep?: number; baseSeq?: number; replayId?: string | null } | null;
    const probes = inv.probes as BlameEvidence["probes"];
    return {
      kind: "blame",
      ...shared,
      decided:
        r?.kind === "decided" && typeof r.modelStep === "number" && typeof r.baseSeq === "number"
          ? { modelStep: r.modelStep, baseSeq: r.baseSeq, stepName: stepName(r.baseSeq) }
          : null,
      branchReplayId: r?.kind === "decided" ? (r.replayId ?? null) : null,
      probes: probes.map((p) => ({
        modelStep: p.modelStep,
        baseSeq: p.baseSeq,
        passes: p.passes,
        trials: p.trials,
        fixes: p.fixes,
      })),
    };
  }
  const r = inv.result as { kind?: string; edits?: Edit[]; replayId?: string | null } | null;
  const probes = inv.probes as MinimizeEvidence["probes"];
  return {
    kind: "minimize",
    ...shared,
    fromReplayId: inv.replayId,
    edits: inv.params.edits ?? [],
    minimal: r?.kind === "minimal" ? (r.edits ?? []) : null,
    savedReplayId: r?.kind === "minimal" ? (r.replayId ?? null) : null,
    probes: probes.map((p) => ({ kept: p.kept, passes: p.passes, trials: p.trials, fixes: p.fixes })),
  };
}

/** The frozen evidence of a policy's coverage (per tool: sources, misses by reason, how many recordings went unused). */
export function coverageEvidence(
  coverage: Coverage,
  scope: CoverageEvidence["scope"],
  session: { id: string; label: string },
  policy: EvidencePolicy,
  at: string,
): CoverageEvidence {
  return {
    kind: "coverage",
    session,
    policy,
    at,
    scope,
    tools: coverage.tools.map((t) => ({
      tool: t.tool,
      calls: t.calls,
      bySource: { ...t.bySource },
      misses: t.misses.map((m) => ({ reason: m.reason, count: m.count, differingPaths: m.differingPaths })),
      unused: t.unused.length,
    })),
  };
}

/** A heading for an item, in a few words. */
export function evidenceTitle(s: EvidenceSnapshot): string {
  switch (s.kind) {
    case "blame":
      return s.decided
        ? `Blame search: the failure is decided at model step ${s.decided.modelStep} (base step ${s.decided.baseSeq})`
        : "Blame search: re-running the model does not fix the run";
    case "minimize":
      return s.minimal
        ? `Minimal counterfactual: ${s.minimal.length} of ${s.edits.length} edits are enough`
        : `Minimal counterfactual: the ${s.edits.length} edits together did not fix the run`;
    case "stale":
      return `Stale recordings: ${s.counts.stale} of ${s.records.length} changed`;
    case "coverage":
      return s.scope.kind === "experiment"
        ? `Policy coverage of experiment ${s.scope.name} (${s.scope.replays} replays)`
        : "Policy coverage of the replay";
  }
}

/** An edit in a few words ("replace tool output at step 3"). */
export function editWords(edit: Edit): string {
  return `${edit.op.replaceAll("_", " ")} at step ${edit.seq}`;
}
