/**
 * The smallest fixing change over a cluster: the investigations' ddmin (`minimizeEdits`) over the changes a fix
 * makes to a base policy (lib/clusters/fix-changes.ts), each probe a fix of the cluster (an experiment over the
 * same seeded sample of members), judged by the share of members it fixes: a subset "fixes" when it fixes at
 * least the share the whole change fixes. Each probe is stored as a fix, so the cluster page lists them with
 * their figures. Runs the probes' replays in this call (it is not a queued job yet).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { applyChanges, describeChange, policyChanges, type PolicyChange } from "@/lib/clusters/fix-changes";
import type { Db } from "@/lib/db";
import { settleExperiment } from "@/lib/db/jobs";
import { queuedReplayIds } from "@/lib/db/experiments";
import { AppError } from "@/lib/errors";
import { minimizeEdits, Policy } from "@/lib/replay";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { runQueuedReplay } from "../replays/run-queued-replay";
import { fixOfExperiment, MAX_FIX_SESSIONS, startClusterFix } from "./cluster-fixes";

/** The recording: every model step and tool answer as recorded. */
const RECORDING: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

export const FixSearchInput = z.strictObject({
  clusterId: z.string().min(1).max(64),
  /** The whole change: a policy that fixes (part of) the cluster. */
  policy: Policy,
  /** What it changes from; the recording when left out. */
  base: Policy.optional(),
  sample: z.number().int().min(1).max(MAX_FIX_SESSIONS).optional(),
  seed: z.number().int().min(0).max(2_147_483_647).optional(),
});
export type FixSearchInput = z.infer<typeof FixSearchInput>;
/** The body of `POST /api/v1/clusters/:id/fixes/smallest`: the input without the cluster (the path names it). */
export const FixSearchBody = FixSearchInput.omit({ clusterId: true });

export type FixSearchProbe = { kept: number[]; fixed: number; of: number; fixes: boolean; experimentId: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a fix's queued replays here until none is open (one a worker holds is waited for), then its figures. */
async function runToEnd(principal: Principal, prisma: Db, experimentId: string) {
  for (;;) {
    for (const id of await queuedReplayIds(prisma, experimentId))
      await runQueuedReplay(prisma, id, { owner: `inline:${process.pid}:${randomUUID()}` });
    await settleExperiment(prisma, experimentId);
    const fix = (await fixOfExperiment(principal, { experimentId }, prisma))!;
    if (fix.figures.done) return fix.figures.members;
    await sleep(250);
  }
}

/** The smallest set of the policy's changes that fixes as large a share of the members as all of them do. */
export async function searchSmallestFix(principal: Principal, input: FixSearchInput, prisma: Db) {
  authorize(principal, "experiments.run");
  const base = input.base ?? RECORDING;
  const changes: PolicyChange[] = policyChanges(base, input.policy);
  if (changes.length === 0)
    throw new AppError(
      "invalid_input",
      "The policy changes nothing from the base policy: there is nothing to minimise.",
      [{ path: "policy", message: "equal to the base" }],
    );
  const probes: FixSearchProbe[] = [];
  let target: number | null = null;
  const result = await minimizeEdits({
    count: changes.length,
    test: async (kept) => {
      const started = await startClusterFix(
        principal,
        {
          clusterId: input.clusterId,
          body: {
            policy: applyChanges(
              base,
              kept.map((i) => changes[i]!),
            ),
            seed: input.seed ?? 0,
            name: `Smallest fix, probe ${probes.length + 1}: ${kept.map((i) => describeChange(changes[i]!)).join("; ")}`.slice(
              0,
              200,
            ),
            ...(input.sample !== undefined ? { sample: input.sample } : {}),
          },
        },
        prisma,
      );
      const m = await runToEnd(principal, prisma, started.experimentId);
      const share = m.judged > 0 ? m.count / m.judged : 0;
      // The first probe is the whole change (ddmin tests it first): its share is the one to keep.
      target ??= share;
      const fixes = m.count > 0 && share >= target;
      probes.push({ kept: [...kept], fixed: m.count, of: m.judged, fixes, experimentId: started.experimentId });
      return fixes;
    },
  });
  return {
    changes: changes.map(describeChange),
    result:
      result.kind === "minimal"
        ? { kind: "minimal" as const, kept: result.kept, changes: result.kept.map((i) => describeChange(changes[i]!)) }
        : { kind: result.kind },
    share: target,
    probes,
  };
}
