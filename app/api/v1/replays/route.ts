import { z } from "zod";
import { listReplays, loadReplayView } from "@/lib/db/replays";
import { env } from "@/lib/env";
import { ApiError, apiRoute, readJson, readQuery } from "@/lib/http/api";
import { presentReplay } from "@/lib/replays/present";
import { createReplay } from "@/lib/replays/service";
import { enqueue } from "@/lib/jobs/runtime";

export const dynamic = "force-dynamic";

/** `{ sessionId, policy | policyVersionId, edits? }` → stores the replay and queues it: `201 { replay }` with status `queued`; poll `GET /api/v1/replays/:id`. */
export const POST = apiRoute(async ({ request, prisma }) => {
  const body = await readJson(request, z.unknown());
  const started = await createReplay(prisma, body, env().BRANCHPOINT_USER);
  // The answer shows the replay as stored (`queued`); a worker may take it the moment it is enqueued.
  const view = await loadReplayView(prisma, started.id);
  if (!view) throw new ApiError(404, "replay_not_found", `Replay "${started.id}" disappeared while it ran.`);
  await enqueue([started.id]);
  return Response.json({ replay: presentReplay(view, started.warnings) }, { status: 201 });
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
