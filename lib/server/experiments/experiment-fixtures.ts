/**
 * Supplying one fixture to every member of an experiment paused on the same
 * call. Members wait on "the same call" when they wait for the same tool with
 * the same cache key (the canonical hash of its arguments): one answer fits
 * them all. Each member is resumed as `supplyFixture` would resume it, one
 * after another; a member that stopped waiting meanwhile is reported, not
 * retried, and the others still get the fixture.
 */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { experimentExists, pausedExperimentMembers, type PausedMember } from "@/lib/db/experiment-fixtures";
import { getReplayState } from "@/lib/db/replays";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import type { QueueDeps } from "../job-queue";
import { FixtureInput } from "../replays/replay-inputs";
import { supplyFixture } from "../replays/replay-resume";

export interface FixtureGroup {
  tool: string;
  cacheKey: string;
  /** The arguments of the call (the same for every member: same cache key). */
  args: unknown;
  /** The first member's prefill: the closest recorded result, when there is one. */
  prefill: PausedMember["pending"]["prefill"];
  message: string;
  members: { replayId: string; session: { id: string; label: string }; callId: string; step: number }[];
}

/** Groups paused members by (tool, cache key), largest group first; members without a cache key are left out. */
export function groupPausedMembers(members: readonly PausedMember[]): {
  groups: FixtureGroup[];
  ungrouped: PausedMember[];
} {
  const byKey = new Map<string, FixtureGroup>();
  const ungrouped: PausedMember[] = [];
  for (const m of members) {
    const { tool, cacheKey } = m.pending;
    if (!cacheKey) {
      ungrouped.push(m);
      continue;
    }
    const key = JSON.stringify([tool, cacheKey]);
    let group = byKey.get(key);
    if (!group) {
      group = {
        tool,
        cacheKey,
        args: m.pending.args,
        prefill: m.pending.prefill,
        message: m.pending.message,
        members: [],
      };
      byKey.set(key, group);
    }
    group.members.push({ replayId: m.replayId, session: m.session, callId: m.pending.callId, step: m.pending.step });
  }
  const groups = [...byKey.values()].sort((a, b) => b.members.length - a.members.length);
  return { groups, ungrouped };
}

export const ExperimentFixturesRef = z.object({ experimentId: z.string().min(1).max(64) });
export type ExperimentFixturesRef = z.infer<typeof ExperimentFixturesRef>;

/** The calls an experiment's members wait on, grouped so one fixture can answer each group. */
export async function experimentFixtureGroups(principal: Principal, input: ExperimentFixturesRef, prisma: Db) {
  authorize(principal, "experiments.read");
  if (!(await experimentExists(prisma, input.experimentId))) throw notFound("experiment", input.experimentId);
  return groupPausedMembers(await pausedExperimentMembers(prisma, input.experimentId));
}

export const SupplyGroupFixtureInput = z
  .object({
    experimentId: z.string().min(1).max(64),
    /** The call the members wait on: its tool and cache key, as listed by experimentFixtureGroups. */
    tool: z.string().min(1, "Name the tool the members wait on."),
    cacheKey: z.string().min(1, "Give the cache key of the call the members wait on."),
  })
  .and(FixtureInput);
export type SupplyGroupFixtureInput = z.infer<typeof SupplyGroupFixtureInput>;

export interface SuppliedMember {
  replayId: string;
  /** The member's status after resuming (it may pause again on a later call), or null when it was not resumed. */
  status: string | null;
  error: { code: string; message: string } | null;
}

/**
 * Gives one fixture to every member waiting for `tool` with `cacheKey`, and
 * resumes each. 404 for an unknown experiment; 409 when no member waits on
 * that call (nothing is written).
 */
export async function supplyGroupFixture(
  principal: Principal,
  input: SupplyGroupFixtureInput,
  prisma: Db,
  deps: QueueDeps = {},
): Promise<{ supplied: SuppliedMember[] }> {
  authorize(principal, "replays.run");
  if (!(await experimentExists(prisma, input.experimentId))) throw notFound("experiment", input.experimentId);
  const waiting = (await pausedExperimentMembers(prisma, input.experimentId)).filter(
    (m) => m.pending.tool === input.tool && m.pending.cacheKey === input.cacheKey,
  );
  if (waiting.length === 0) {
    throw new AppError(
      "wrong_state",
      `No member of this experiment waits for ${input.tool} with that cache key: it may have been supplied already.`,
      [{ path: "cacheKey", message: "no member waits on this call" }],
    );
  }
  const supplied: SuppliedMember[] = [];
  for (const m of waiting) {
    try {
      await supplyFixture(
        principal,
        {
          replayId: m.replayId,
          output: input.output,
          error: input.error,
          note: input.note,
          tool: input.tool,
          callId: m.pending.callId,
          provenance: {
            ...(input.provenance ?? { source: "api" }),
            batch: { experimentId: input.experimentId, members: waiting.length },
          },
        },
        prisma,
        // Each member goes on the queue once its fixture is stored; a worker resumes it.
        deps,
      );
      const state = await getReplayState(prisma, m.replayId);
      supplied.push({ replayId: m.replayId, status: state?.status ?? null, error: null });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      supplied.push({ replayId: m.replayId, status: null, error: { code: error.code, message: error.message } });
    }
  }
  return { supplied };
}
