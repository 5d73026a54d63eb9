import { apiRoute, readJson, readQuery } from "@/lib/http/api";
import { presentReplay } from "@/lib/http/present";
import { getReplay, ListReplaysInput, listReplays, StartReplayInput, startReplay } from "@/lib/server/replays";

export const dynamic = "force-dynamic";

/** `{ sessionId, policy | policyVersionId, edits? }` → runs the branch to its first stop: `201 { replay }`. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const input = await readJson(request, StartReplayInput);
  const started = await startReplay(principal, input, prisma);
  const view = await getReplay(principal, { replayId: started.id }, prisma);
  return Response.json({ replay: presentReplay(view, started.warnings) }, { status: 201 });
});

/** Replays, newest first: `{ replays, nextCursor }`. */
export const GET = apiRoute(async ({ request, prisma, principal }) => {
  const { replays, nextCursor } = await listReplays(principal, readQuery(request, ListReplaysInput), prisma);
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
