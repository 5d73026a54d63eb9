/**
 * Running an investigation: a job worker's unit, under a lease it renews. Each probe is ordinary replays of the
 * session; the probes are stored as they finish, so a run that takes over goes on from them.
 */
import type { Db } from "@/lib/db/client";
import {
  claimInvestigation,
  findInvestigation,
  finishInvestigation,
  holdsInvestigationLease,
  releaseInvestigationLease,
  renewInvestigationLease,
  replayOutcomes,
  saveInvestigationProgress,
  savePendingProbe,
  type InvestigationClaim,
  type InvestigationRow,
} from "@/lib/db/investigations";
import { isTerminal } from "@/lib/db/replays";
import { type Edit, minimizeEdits, type Policy, runPassed, searchBlame, type ProbeOutcome } from "@/lib/replay";
import type { Principal } from "../principal";
import { jobQueueFor, type QueueDeps } from "../job-queue";
import {
  runLeasedRow,
  runReplaysUntil,
  type LeasedRun,
  type LeasedRunOptions,
  type LeasedRunOutcome,
} from "../jobs/leased-run";
import { createReplay } from "../replays/replays";
import {
  createInvestigation,
  runStaleCheck,
  type BlameProbeRecord,
  type InvestigationRef,
  type MinimizeProbeRecord,
  type Params,
  type StaleRecord,
  type StartInvestigationInput,
} from "./investigations";

export type InvestigationRunOptions = LeasedRunOptions;
export type InvestigationRunOutcome = LeasedRunOutcome;

/**
 * Runs a probe's replays to their end under replay leases: each queued one (or one whose worker is gone) is
 * run here; one another worker holds is waited for. Paused or awaiting-approval trials count as ended (they
 * did not pass).
 */
async function runProbeReplays(prisma: Db, replayIds: readonly string[], leaseMs: number, lost: () => boolean) {
  await runReplaysUntil(prisma, leaseMs, lost, {
    replayIds: () => replayIds,
    ended: async () => {
      const outcomes = await replayOutcomes(prisma, replayIds);
      return outcomes.some((o) => o.status === "queued" || o.status === "running") ? null : true;
    },
  });
}

const INVESTIGATION_JOB = {
  permission: "investigations.run",
  find: findInvestigation,
  label: "Investigation",
  noun: "investigation",
  store: {
    claim: claimInvestigation,
    renew: renewInvestigationLease,
    save: saveInvestigationProgress,
    finish: finishInvestigation,
    release: releaseInvestigationLease,
  },
} as const;

/**
 * Runs a queued investigation to its end (a job worker's unit) under a lease it renews (runLeased). The searches
 * are deterministic given the probes' outcomes, so a run that takes over asks for the same probes in the same
 * order: a probe already finished is answered from the stored record (not run again), and the probe that was
 * running reuses the replays created for it (recorded with them), running those of them nobody finished. Each
 * probe is `trials` replays started as the investigation's author; probes are stored as they finish, and a
 * cancel stops it before the next probe.
 */
export async function runInvestigation(
  principal: Principal,
  input: InvestigationRef,
  prisma: Db,
  opts: InvestigationRunOptions = {},
): Promise<InvestigationRunOutcome> {
  return runLeasedRow(
    principal,
    prisma,
    input.investigationId,
    opts,
    INVESTIGATION_JOB,
    (row, leased: InvestigationLeased) => runClaimed(principal, prisma, row, leased),
  );
}

type ProbeRecord = BlameProbeRecord | MinimizeProbeRecord | StaleRecord;
type InvestigationEnd = Parameters<typeof finishInvestigation>[3];
type InvestigationLeased = LeasedRun<
  Extract<InvestigationClaim, { kind: "claimed" }>,
  ProbeRecord,
  Exclude<InvestigationEnd["status"], "failed">
>;

/** What the steps of a claimed run share: its records so far, and how to probe, save and finish. */
interface ClaimedRun {
  row: InvestigationRow;
  params: Params;
  /** The probes an earlier run finished. */
  earlier: ProbeRecord[];
  records: ProbeRecord[];
  probe: (key: string, policy: Policy, edits: Edit[]) => Promise<ProbeOutcome & { replayIds: string[] }>;
  save: () => Promise<void>;
  finish: (end: InvestigationEnd) => Promise<InvestigationRunOutcome>;
  /** Cancelled, or the lease is gone. */
  stop: () => boolean;
  /** The lease is gone (found on saving, or by the heartbeat). */
  gone: () => boolean;
  lost: InvestigationLeased["lost"];
  cancelled: () => boolean;
}

async function runClaimed(
  principal: Principal,
  prisma: Db,
  row: InvestigationRow,
  leased: InvestigationLeased,
): Promise<InvestigationRunOutcome> {
  const { claim, owner, leaseMs, gone } = leased;
  const params = row.params as Params;
  let cancelled = false;
  const save = async () => {
    cancelled = (await leased.save()) || cancelled;
  };

  /** Runs one probe: `trials` replays of the session with this policy and these edits; counts the passes. */
  const probe = async (key: string, policy: Policy, edits: Edit[]): Promise<ProbeOutcome & { replayIds: string[] }> => {
    let replayIds: string[];
    if (claim.pendingProbe?.key === key) {
      // The run before this one created them and stopped while they ran.
      replayIds = claim.pendingProbe.replayIds;
    } else {
      const started = await createReplay(
        principal,
        {
          sessionId: row.sessionId,
          policy,
          edits,
          checks: params.checks,
          ...(params.trials > 1 ? { trials: params.trials } : {}),
          ...(params.modelEndpoint ? { modelEndpoint: params.modelEndpoint } : {}),
        },
        prisma,
        async (tx, ids) => {
          if (!(await holdsInvestigationLease(tx, row.id, owner))) throw leased.lost();
          await savePendingProbe(tx, row.id, owner, { key, replayIds: ids });
        },
      );
      replayIds = started.trialIds ?? [started.id];
    }
    await runProbeReplays(prisma, replayIds, leaseMs, gone);
    if (gone()) throw leased.lost();
    const outcomes = await replayOutcomes(prisma, replayIds);
    const passes = outcomes.filter((o) => isTerminal(o.status) && runPassed(o.verdicts?.branch) === true).length;
    return { passes, trials: replayIds.length, replayIds };
  };

  const run: ClaimedRun = {
    row,
    params,
    earlier: leased.earlier,
    records: leased.records,
    probe,
    save,
    finish: leased.finish,
    stop: () => cancelled || gone(),
    gone,
    lost: leased.lost,
    cancelled: () => cancelled,
  };
  if (row.kind === "stale") return await runStale(run, prisma);
  if (row.kind === "blame") return await runBlame(run);
  return await runMinimize(run);
}

/** A stale check: each recorded tool answer asked again. */
async function runStale(run: ClaimedRun, prisma: Db): Promise<InvestigationRunOutcome> {
  const { params, records, save, finish } = run;
  const staleRecords = records as StaleRecord[];
  const end = await runStaleCheck(params, prisma, staleRecords, async () => {
    await save();
    if (run.gone()) throw run.lost();
    return run.cancelled();
  });
  const count = (state: StaleRecord["state"]) => staleRecords.filter((r) => r.state === state).length;
  return await finish({
    status: end,
    probes: staleRecords,
    result: {
      kind: end === "cancelled" ? "cancelled" : "checked",
      stale: count("stale"),
      fresh: count("fresh"),
      unchecked: count("unchecked"),
    },
  });
}

/** A blame search: the model step from which a live model makes the run pass. */
async function runBlame(run: ClaimedRun): Promise<InvestigationRunOutcome> {
  const { params, earlier, records, probe, save, finish, stop } = run;
  const modelSteps = params.modelSteps ?? [];
  const done = new Map((earlier as BlameProbeRecord[]).map((r) => [r.modelStep, r]));
  const ids = new Map<number, string[]>([...done].map(([step, r]) => [step, r.replayIds]));
  const result = await searchBlame({
    steps: modelSteps.map((_, i) => i),
    share: params.share,
    probe: async (modelStep) => {
      const kept = done.get(modelStep);
      if (kept) return { passes: kept.passes, trials: kept.trials };
      const outcome = await probe(String(modelStep), { ...params.policy, liveFromModelStep: modelStep }, []);
      ids.set(modelStep, outcome.replayIds);
      const passRate = outcome.passes / outcome.trials;
      records.push({
        index: modelStep,
        modelStep,
        baseSeq: modelSteps[modelStep]!.seq,
        passes: outcome.passes,
        trials: outcome.trials,
        passRate,
        fixes: passRate >= params.share,
        replayIds: outcome.replayIds,
      });
      await save();
      return outcome;
    },
    isCancelled: stop,
  });
  if (run.gone()) return "lease_lost";
  const outcome =
    result.kind === "decided"
      ? {
          kind: "decided" as const,
          modelStep: result.step,
          baseSeq: modelSteps[result.step]!.seq,
          replayId: ids.get(result.step)?.[0] ?? null,
        }
      : { kind: result.kind };
  return await finish({
    status: result.kind === "cancelled" ? "cancelled" : "completed",
    probes: records,
    result: outcome,
  });
}

/** Edit minimisation: the smallest set of the edits that still fixes the run. */
async function runMinimize(run: ClaimedRun): Promise<InvestigationRunOutcome> {
  const { params, earlier, records, probe, save, finish, stop } = run;
  const edits = params.edits ?? [];
  const done = new Map((earlier as MinimizeProbeRecord[]).map((r) => [r.kept.join(","), r]));
  const idsOf = new Map<string, string[]>([...done].map(([key, r]) => [key, r.replayIds]));
  const result = await minimizeEdits({
    count: edits.length,
    test: async (kept) => {
      const key = kept.join(",");
      const stored = done.get(key);
      if (stored) return stored.fixes;
      const outcome = await probe(
        key,
        params.policy,
        kept.map((i) => edits[i]!),
      );
      idsOf.set(key, outcome.replayIds);
      const fixes = outcome.passes / outcome.trials >= params.share;
      records.push({
        kept: [...kept],
        fixes,
        passes: outcome.passes,
        trials: outcome.trials,
        replayIds: outcome.replayIds,
      });
      await save();
      return fixes;
    },
    isCancelled: stop,
  });
  if (run.gone()) return "lease_lost";
  const outcome =
    result.kind === "minimal"
      ? {
          kind: "minimal" as const,
          kept: result.kept,
          edits: result.kept.map((i) => edits[i]!),
          replayId: idsOf.get(result.kept.join(","))?.[0] ?? null,
        }
      : { kind: result.kind };
  return await finish({
    status: result.kind === "cancelled" ? "cancelled" : "completed",
    probes: records,
    result: outcome,
  });
}

/**
 * Stores an investigation and puts it on the job queue (a worker runs it on behalf of its author); its page shows
 * the probes as they finish. With no queue plugged in (tests, scripts), it runs in this call.
 */
export async function startInvestigation(
  principal: Principal,
  input: StartInvestigationInput,
  prisma: Db,
  deps: QueueDeps = {},
) {
  const created = await createInvestigation(principal, input, prisma);
  const queue = jobQueueFor(deps);
  if (queue) await queue.enqueueInvestigations([{ id: created.id, by: principal.name }]);
  else await runInvestigation(principal, { investigationId: created.id }, prisma);
  return created;
}
