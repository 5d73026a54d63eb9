import { apiRoute } from "@/lib/http/api";
import { parseInput } from "@/lib/errors";
import { getReplayStep, ReplayStepInput } from "@/lib/server/replays/replay-pages";

export const dynamic = "force-dynamic";

/** One branch step whole (a model call with its full input): `{ step }`. */
export const GET = apiRoute<{ id: string; seq: string }>(async ({ prisma, params, principal }) => {
  const ref = parseInput(ReplayStepInput, { replayId: params.id, seq: params.seq });
  return Response.json({ step: await getReplayStep(principal, ref, prisma) });
});
