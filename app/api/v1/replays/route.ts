import { z } from "zod";
import { listReplays, loadReplayView } from "@/lib/db/replays";
import { env } from "@/lib/env";
import { ApiError, apiRoute, readJson, readQuery } from "@/lib/http/api";
import { presentReplay } from "@/lib/replays/present";
import { startReplay } from "@/lib/replays/service";
import { replayCounterfactual, trialSetView } from "@/lib/server/counterfactual";

export const dynamic = "force-dynamic";

/**
 * `{ sessionId, policy | policyVersionId, edits?, modelEndpoint?, checks?, trials? }` → runs the branch
 * to its first stop: `201 { replay }` (with `fork` and check `verdicts`). With `trials` > 1, runs each
 * trial and adds `trialSet` (pass rate, interval, per-step departures); `replay` is the first trial.
 */
export const POST = apiRoute(async ({ request, prisma }) => {
  const body = await readJson(request, z.unknown());
  const started = await startReplay(prisma, body, env().BRANCHPOINT_USER);
  const view = await loadReplayView(prisma, started.id);
  if (!view) throw new ApiError(404, "replay_not_found", `Replay "${started.id}" disappeared while it ran.`);
  const counterfactual = await replayCounterfactual(prisma, started.id);
  return Response.json(
    {
      replay: { ...presentReplay(view, started.warnings), ...counterfactual },
      ...(started.trialSetId ? { trialSet: await trialSetView(prisma, started.trialSetId) } : {}),
    },
    { status: 201 },
  );
});

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
});

/** Replays, newest first: `{ replays, nextCursor }`. */
export const GET = apiRoute(async ({ request, prisma }) => {
  const query = readQuery(request, ListQuery);
  const { replays, nextCursor } = await listReplays(prisma, query);
  return Response.json({
    replays: replays.map((r) => ({
      id: r.id,
      status: r.status,
      comparability: r.comparability,
      policyHash: r.policyHash,
      stepCount: r.stepCount,
      sessionId: r.session.id,
      createdAt: r.createdAt.toISOString(),
      createdBy: r.createdBy,
    })),
    nextCursor,
  });
});
