/**
 * The smallest fixing change over a cluster: the investigations' ddmin (`minimizeEdits`) over the changes a fix
 * makes to a base policy (lib/clusters/fix-changes.ts), each probe a fix of the cluster (an experiment over the
 * same seeded sample of members), judged by the share of members it fixes: a subset "fixes" when it fixes at
 * least the share the whole change fixes. Each probe is stored as a fix, so the cluster page lists them with
 * their figures.
 *
 * A search is a durable job, run as an investigation is (run-investigation.ts): stored `queued`, put on the
 * investigation queue, run by a worker under a lease it renews. Its probes are stored as they finish, and the
 * probe being run is recorded with its experiment (in the experiment's transaction), so a run that takes over
 * from a worker killed mid-search answers the finished probes from the store and reuses the cut-off probe's
 * experiment: no probe runs twice.
 */
import { z } from "zod";
import { applyFixChanges, describeChange, fixChanges, type FixChange } from "@/lib/clusters/fix-changes";
import type { Db } from "@/lib/db";
import {
  claimFixSearch,
  findFixSearch,
  finishFixSearch,
  holdsFixSearchLease,
  insertFixSearch,
  listFixSearchRows,
  releaseFixSearchLease,
  renewFixSearchLease,
  requestFixSearchCancel,
  saveFixSearchPending,
  saveFixSearchProgress,
  type FixSearchClaim,
  type FixSearchRow,
} from "@/lib/db/cluster-fix-searches";
import { clusterById } from "@/lib/db/clusters";
import { clusterFixToSearch, latestPolicyVersion, sampleClusterMembers } from "@/lib/db/cluster-fixes";
import { settleExperiment } from "@/lib/db/jobs";
import { queuedReplayIds } from "@/lib/db/experiments";
import { AppError, notFound } from "@/lib/errors";
import { CohortEdit, minimizeEdits, Policy } from "@/lib/replay";
import { authorize } from "../authz";
import { jobQueueFor, type QueueDeps } from "../job-queue";
import {
  runLeasedRow,
  runReplaysUntil,
  type LeasedRun,
  type LeasedRunOptions,
  type LeasedRunOutcome,
} from "../jobs/leased-run";
import type { Principal } from "../principal";
import { refuseNul } from "../replays/replay-inputs";
import { fixOfExperiment, MAX_FIX_SESSIONS, startClusterFix } from "./cluster-fixes";
import { fitFixEdits, storedFixEdits } from "./fix-edits";

/** The recording: every model step and tool answer as recorded. */
const RECORDING: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/** Most changes one search takes (ddmin may run up to (n² + 3n) / 2 probes). */
export const MAX_SEARCH_CHANGES = 12;

const FixSearchFields = z.strictObject({
  clusterId: z.string().min(1).max(64),
  /** The whole change: a policy that fixes (part of) the cluster; the base alone when left out (edits given). */
  policy: Policy.optional(),
  /** Edits of tools' results that are part of the whole change, each one change of the search. */
  edits: z.array(CohortEdit).min(1, "Give at least one edit, or leave edits out.").max(MAX_SEARCH_CHANGES).optional(),
  /** What it changes from; the recording when left out. */
  base: Policy.optional(),
  sample: z.number().int().min(1).max(MAX_FIX_SESSIONS).optional(),
  seed: z.number().int().min(0).max(2_147_483_647).optional(),
});
const refineSearch = <T extends z.ZodType<{ policy?: unknown; edits?: unknown }>>(schema: T) =>
  schema
    .superRefine((v, ctx) => refuseNul({ edits: v.edits }, ctx))
    .refine((v) => v.policy !== undefined || v.edits !== undefined, {
      message: "Give the whole fix: a policy, edits of tools' results, or both.",
      path: ["policy"],
    });
export const FixSearchInput = refineSearch(FixSearchFields);
export type FixSearchInput = z.infer<typeof FixSearchInput>;
/** The body of `POST /api/v1/clusters/:id/fixes/smallest`: the input without the cluster (the path names it). */
export const FixSearchBody = refineSearch(FixSearchFields.omit({ clusterId: true }));
type FixSearchParams = z.infer<typeof FixSearchBody>;

export type FixSearchProbe = { kept: number[]; fixed: number; of: number; fixes: boolean; experimentId: string };

export type FixSearchResult =
  | { kind: "minimal"; kept: number[]; changes: string[]; fixed: number; of: number; experimentId: string | null }
  /** The whole change fixes none of the sampled members: there is nothing to minimise. */
  | { kind: "not_fixing" }
  | { kind: "cancelled" };

/** The most probes ddmin runs over n changes. */
export const searchProbeBound = (n: number) => (n * n + 3 * n) / 2;

/** A search as the API and the cluster page show it. */
export function presentFixSearch(row: FixSearchRow) {
  const changes = (Array.isArray(row.changes) ? row.changes : []) as string[];
  const probes = (Array.isArray(row.probes) ? row.probes : []) as FixSearchProbe[];
  const params = row.params as FixSearchParams;
  const result = (row.result ?? null) as (FixSearchResult & { share?: number | null }) | null;
  return {
    id: row.id,
    clusterId: row.clusterId,
    status: row.status as "queued" | "running" | "done" | "failed" | "cancelled",
    changes,
    sample: params.sample ?? null,
    seed: params.seed ?? 0,
    /** Probes run so far, of at most `atMost` (ddmin usually stops well before). */
    progress: { probes: probes.length, atMost: searchProbeBound(changes.length) },
    probes,
    result,
    error: (row.error ?? null) as { code: string; message: string } | null,
    cancelRequested: row.cancelRequested,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
export type FixSearchView = ReturnType<typeof presentFixSearch>;

/**
 * Stores a search (status `queued`) after checking what can be refused at once (an unknown cluster, a policy
 * equal to its base, too many changes, a cluster too large without a sample) and puts it on the job queue; with
 * no queue plugged in (tests, scripts), it runs in this call.
 */
export async function startFixSearch(principal: Principal, input: FixSearchInput, prisma: Db, deps: QueueDeps = {}) {
  authorize(principal, "experiments.run");
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId);
  const changes = fixChanges(input.base ?? RECORDING, input.policy, input.edits);
  if (changes.length === 0)
    throw new AppError(
      "invalid_input",
      "The policy changes nothing from the base policy: there is nothing to minimise.",
      [{ path: "policy", message: "equal to the base" }],
    );
  if (changes.length > MAX_SEARCH_CHANGES)
    throw new AppError(
      "invalid_input",
      `The ${input.edits ? "fix" : "policy"} makes ${changes.length} changes from its base${input.edits ? ` (${input.edits.length} of them edits)` : ""}; a search takes at most ${MAX_SEARCH_CHANGES} (it may run up to ${searchProbeBound(changes.length)} probes).`,
      [{ path: input.edits ? "edits" : "policy", message: "too many changes" }],
    );
  if (input.sample === undefined && cluster.size > MAX_FIX_SESSIONS)
    throw new AppError(
      "invalid_input",
      `The cluster has more than ${MAX_FIX_SESSIONS} sessions; give a sample size (at most ${MAX_FIX_SESSIONS}).`,
      [{ path: "sample", message: "needed for a cluster this large" }],
    );
  // The edits are fitted to the sample every probe runs: one that applies to none, or two that set one call
  // differently, are refused now rather than by the first probe.
  if (input.edits) {
    const members = await sampleClusterMembers(prisma, cluster.id, input.sample ?? MAX_FIX_SESSIONS, input.seed ?? 0);
    await fitFixEdits(
      prisma,
      { edits: input.edits },
      members.map((m) => m.sessionId),
      [],
    );
  }
  const { clusterId, ...params } = input;
  const row = await insertFixSearch(prisma, {
    clusterId,
    params,
    changes: changes.map(describeChange),
    createdBy: principal.name,
  });
  const queue = jobQueueFor(deps);
  if (queue) await queue.enqueueInvestigations([{ id: row.id, by: principal.name, kind: "fix-search" }]);
  else await runFixSearch(principal, { searchId: row.id }, prisma);
  return presentFixSearch((await findFixSearch(prisma, row.id)) ?? row);
}

/**
 * The cluster page's form: a saved policy (its newest version) searched from the recording, or a fix tried on the
 * cluster (its policy and its edits, over its sample).
 */
export const StartFixSearchOfPolicy = z
  .strictObject({
    clusterId: z.string().min(1).max(64),
    policyId: z.string().min(1, "Choose a saved policy.").max(64).optional(),
    fixId: z.string().min(1, "Choose a fix.").max(64).optional(),
    sample: z.number().int().min(1).max(MAX_FIX_SESSIONS).optional(),
    seed: z.number().int().min(0).max(2_147_483_647).optional(),
  })
  .refine((v) => (v.policyId === undefined) !== (v.fixId === undefined), {
    message: "Choose a saved policy or a fix tried on the cluster.",
    path: ["policyId"],
  });
export type StartFixSearchOfPolicy = z.infer<typeof StartFixSearchOfPolicy>;

/** The whole fix a tried fix ran: its policy document and its edits, with its sample and seed unless given. */
async function fixToSearch(prisma: Db, clusterId: string, fixId: string) {
  const fix = await clusterFixToSearch(prisma, fixId);
  if (!fix || fix.clusterId !== clusterId) throw notFound("fix", fixId, "fixId");
  const parsed = Policy.safeParse(fix.experiment.policyVersion.document);
  if (!parsed.success) throw new AppError("invalid_policy", "The fix's policy is not a valid policy document.");
  const edits = storedFixEdits(fix.experiment.cohortEdit);
  return {
    policy: parsed.data,
    ...(edits.length > 0 ? { edits } : {}),
    ...(fix.sample !== null ? { sample: fix.sample } : {}),
    seed: fix.seed,
  };
}

/** A saved policy's newest version, for a search of its changes from the recording. */
async function savedPolicyToSearch(prisma: Db, agentId: string, policyId: string) {
  const version = await latestPolicyVersion(prisma, policyId);
  if (!version) throw notFound("policy", policyId, "policyId");
  if (version.policy.agentId && version.policy.agentId !== agentId)
    throw new AppError("invalid_input", `Policy "${version.policy.name}" belongs to another agent.`, [
      { path: "policyId", message: "belongs to another agent" },
    ]);
  const parsed = Policy.safeParse(version.document);
  if (!parsed.success) throw new AppError("invalid_policy", "The saved policy is not a valid policy document.");
  return { policy: parsed.data };
}

/**
 * Starts a search over the changes a saved policy makes from the recording, or over a tried fix's policy changes
 * and edits (the cluster page's button).
 */
export async function startFixSearchOfPolicy(
  principal: Principal,
  input: StartFixSearchOfPolicy,
  prisma: Db,
  deps: QueueDeps = {},
) {
  authorize(principal, "experiments.run");
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId);
  const whole =
    input.fixId !== undefined
      ? await fixToSearch(prisma, cluster.id, input.fixId)
      : await savedPolicyToSearch(prisma, cluster.agentId, input.policyId!);
  const { policyId: _policyId, fixId: _fixId, ...rest } = input;
  return startFixSearch(principal, { ...whole, ...rest }, prisma, deps);
}

/** One search of a cluster (404 when the search is not the cluster's). */
export async function getFixSearch(principal: Principal, input: { clusterId: string; searchId: string }, prisma: Db) {
  authorize(principal, "experiments.read");
  const row = await findFixSearch(prisma, input.searchId);
  if (!row || row.clusterId !== input.clusterId) throw notFound("search", input.searchId);
  return presentFixSearch(row);
}

/** A cluster's searches, newest first. */
export async function listFixSearches(principal: Principal, input: { clusterId: string }, prisma: Db) {
  authorize(principal, "experiments.read");
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId);
  return { searches: (await listFixSearchRows(prisma, cluster.id)).map(presentFixSearch) };
}

/** Cancels a queued search at once; a running one stops before its next probe. A finished one is a 409. */
export async function cancelFixSearch(
  principal: Principal,
  input: { clusterId: string; searchId: string },
  prisma: Db,
) {
  authorize(principal, "experiments.run");
  const row = await findFixSearch(prisma, input.searchId);
  if (!row || row.clusterId !== input.clusterId) throw notFound("search", input.searchId);
  if (row.status !== "queued" && row.status !== "running")
    throw new AppError("conflict", `The search has already ended (${row.status}); there is nothing to cancel.`);
  await requestFixSearchCancel(prisma, row.id);
  return presentFixSearch((await findFixSearch(prisma, row.id))!);
}

export type FixSearchRunOptions = LeasedRunOptions;
export type FixSearchRunOutcome = LeasedRunOutcome;

/**
 * Runs a fix's queued replays here until none is open (one another worker holds is waited for), then its
 * figures; null when the lease was lost on the way.
 */
function runToEnd(principal: Principal, prisma: Db, experimentId: string, leaseMs: number, lost: () => boolean) {
  return runReplaysUntil(prisma, leaseMs, lost, {
    replayIds: () => queuedReplayIds(prisma, experimentId),
    ended: async () => {
      await settleExperiment(prisma, experimentId);
      const fix = (await fixOfExperiment(principal, { experimentId }, prisma))!;
      return fix.figures.done ? fix.figures.members : null;
    },
  });
}

const FIX_SEARCH_JOB = {
  permission: "experiments.run",
  find: findFixSearch,
  label: "Smallest-fix search",
  noun: "search",
  store: {
    claim: claimFixSearch,
    renew: renewFixSearchLease,
    save: saveFixSearchProgress,
    finish: finishFixSearch,
    release: releaseFixSearchLease,
  },
} as const;

type FixSearchLeased = LeasedRun<
  Extract<FixSearchClaim, { kind: "claimed" }>,
  FixSearchProbe,
  Exclude<Parameters<typeof finishFixSearch>[3]["status"], "failed">
>;

/**
 * Runs a queued search to its end under a lease it renews (a job worker's unit, run as an investigation is:
 * runLeased). ddmin is deterministic given the probes' answers, so a run that takes over asks for the same probes
 * in the same order: one already stored is answered from the store, the one that was running reuses its
 * experiment. A cancel stops it before the next probe; a probe refused (the policy is not valid for the agent, the
 * cluster emptied) fails it, in words.
 */
export async function runFixSearch(
  principal: Principal,
  input: { searchId: string },
  prisma: Db,
  opts: FixSearchRunOptions = {},
): Promise<FixSearchRunOutcome> {
  return runLeasedRow(principal, prisma, input.searchId, opts, FIX_SEARCH_JOB, (row, leased: FixSearchLeased) =>
    runClaimed(principal, prisma, row, leased),
  );
}

async function runClaimed(
  principal: Principal,
  prisma: Db,
  row: FixSearchRow,
  leased: FixSearchLeased,
): Promise<FixSearchRunOutcome> {
  const { owner, leaseMs, records, gone } = leased;
  const pending = leased.claim.pendingProbe;
  const params = FixSearchBody.parse(row.params);
  const base = params.base ?? RECORDING;
  const changes: FixChange[] = fixChanges(base, params.policy, params.edits);
  let cancelled = false;
  const done = new Map(records.map((r) => [r.kept.join(","), r]));
  let target: number | null = null;
  const shareOf = (p: FixSearchProbe) => (p.of > 0 ? p.fixed / p.of : 0);

  const result = await minimizeEdits({
    count: changes.length,
    test: async (kept) => {
      const key = kept.join(",");
      const stored = done.get(key);
      if (stored) {
        target ??= shareOf(stored);
        return stored.fixes;
      }
      let experimentId: string;
      if (pending?.key === key) experimentId = pending.experimentId;
      else {
        const fix = applyFixChanges(
          base,
          kept.map((i) => changes[i]!),
        );
        const started = await startClusterFix(
          principal,
          {
            clusterId: row.clusterId,
            body: {
              policy: fix.policy,
              ...(fix.edits.length > 0 ? { edits: fix.edits } : {}),
              seed: params.seed ?? 0,
              name: `Smallest fix, probe ${records.length + 1}: ${kept.map((i) => describeChange(changes[i]!)).join("; ")}`.slice(
                0,
                200,
              ),
              ...(params.sample !== undefined ? { sample: params.sample } : {}),
            },
          },
          prisma,
          {
            alongside: async (tx, id) => {
              if (!(await holdsFixSearchLease(tx, row.id, owner))) throw leased.lost();
              await saveFixSearchPending(tx, row.id, owner, { key, experimentId: id });
            },
          },
        );
        experimentId = started.experimentId;
      }
      const m = await runToEnd(principal, prisma, experimentId, leaseMs, gone);
      if (!m || gone()) throw leased.lost();
      const probe = { kept: [...kept], fixed: m.count, of: m.judged, fixes: false, experimentId };
      // The first probe is the whole change (ddmin tests it first): its share is the one to keep.
      target ??= shareOf(probe);
      probe.fixes = m.count > 0 && shareOf(probe) >= target;
      records.push(probe);
      done.set(key, probe);
      const cancelRequested = await leased.save();
      if (gone()) throw leased.lost();
      cancelled = cancelRequested;
      return probe.fixes;
    },
    isCancelled: () => cancelled || gone(),
  });
  if (gone()) return "lease_lost";
  let outcome: FixSearchResult;
  if (result.kind === "minimal") {
    const chosen = done.get(result.kept.join(","));
    outcome = {
      kind: "minimal",
      kept: result.kept,
      changes: result.kept.map((i) => describeChange(changes[i]!)),
      fixed: chosen?.fixed ?? 0,
      of: chosen?.of ?? 0,
      experimentId: chosen?.experimentId ?? null,
    };
  } else outcome = { kind: result.kind };
  return await leased.finish({
    status: result.kind === "cancelled" ? "cancelled" : "done",
    probes: records,
    result: { ...outcome, share: target },
  });
}
