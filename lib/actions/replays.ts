"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { AppError, parseInput } from "@/lib/errors";
import { validatedAction } from "@/lib/http/action";
import { publicOriginOfHeaders } from "@/lib/http/origins";
import { agentAccess } from "@/lib/server/agent/agent-access";
import { parseFixtureForm } from "@/lib/http/fixture-form";
import { cancelReplay, CancelReplayInput } from "@/lib/server/jobs/jobs";
import {
  ComparisonPairInput,
  DecideApprovalInput,
  ReplayRef,
  StartReplayInput,
  SupplyFixtureInput,
} from "@/lib/server/replays/replay-inputs";
import { getComparisonPair, getReplayState } from "@/lib/server/replays/replay-reads";
import { decideApproval, supplyFixture } from "@/lib/server/replays/replay-resume";
import { startReplay } from "@/lib/server/replays/replays";
import { getReplayCoverage } from "@/lib/server/replays/coverage";
import { getReplayStep, listReplaySteps, ReplayStepInput, ReplayStepsInput } from "@/lib/server/replays/replay-pages";
import {
  ComparisonFindInput,
  ComparisonRowsInput,
  findComparisonRow,
  listComparisonRows,
} from "@/lib/server/replays/comparison-pages";

/**
 * Stores the replay and queues it for a worker: the page shows progress instead of waiting.
 * Repeated trials are stored as one replay each, one job each.
 */
export const startReplayAction = validatedAction(StartReplayInput, async (principal, input, prisma) => {
  const started = await startReplay(principal, input, prisma);
  revalidatePath("/replays");
  return {
    id: started.id,
    trialSetId: started.trialSetId ?? null,
    warnings: started.warnings.map((w) => w.message),
    // An agent-driven branch: its token, shown this once, and the endpoints to point the agent at.
    agent: started.agentToken
      ? agentAccess(publicOriginOfHeaders(await headers()), started.id, started.agentToken)
      : null,
  };
});

export const supplyFixtureAction = validatedAction(
  z.object({
    replayId: z.string().min(1),
    callId: z.string().min(1),
    kind: z.enum(["output", "error"]),
    text: z.string(),
    note: z.string(),
    prefilledFrom: z.number().int().nullable(),
  }),
  async (principal, input, prisma) => {
    const form = parseFixtureForm(input.kind, input.text);
    if (!form.ok) throw new AppError("invalid_input", form.message, [{ path: form.path, message: form.message }]);
    const provenance = { source: "dashboard", prefilledFromSeq: input.prefilledFrom };
    const fixture = await supplyFixture(
      principal,
      parseInput(
        SupplyFixtureInput,
        { replayId: input.replayId, ...form.body, note: input.note, callId: input.callId, provenance },
        "The fixture is not valid.",
      ),
      prisma,
    );
    revalidatePath(`/replays/${input.replayId}`);
    return { fixtureId: fixture.id };
  },
);

export const decideApprovalAction = validatedAction(DecideApprovalInput, async (principal, input, prisma) => {
  const approval = await decideApproval(principal, { ...input, note: input.note || undefined }, prisma);
  revalidatePath(`/replays/${input.replayId}`);
  return { approvalId: approval.id };
});

/** Status for the progress poll. */
export const replayStateAction = validatedAction(ReplayRef, getReplayState);

/** Both sides of one aligned pair, for the comparison's detail panel. */
export const comparisonPairAction = validatedAction(ComparisonPairInput, getComparisonPair);

/** Cancels a replay: a queued or waiting one at once, a running one at its next step (steps so far kept). */
export const cancelReplayAction = validatedAction(CancelReplayInput, async (principal, input, prisma) => {
  const outcome = await cancelReplay(principal, input, prisma);
  revalidatePath(`/replays/${input.replayId}`);
  return outcome;
});

/** One window of the branch's step summaries (the replay page loads them as they scroll). */
export const replayStepsAction = validatedAction(ReplayStepsInput, listReplaySteps);

/** One branch step whole, when it is opened. */
export const replayStepAction = validatedAction(ReplayStepInput, getReplayStep);

/** One window of the comparison's rows under a filter. */
export const comparisonRowsAction = validatedAction(ComparisonRowsInput, listComparisonRows);

/** A pair's position under a filter, or the next / previous change from it (j / k). */
export const comparisonFindAction = validatedAction(ComparisonFindInput, findComparisonRow);

/** The replay's policy coverage (the page loads it once its first screen is shown). */
export const replayCoverageAction = validatedAction(ReplayRef, getReplayCoverage);
