import { route } from "@/lib/http/route";
import { parseInput } from "@/lib/errors";
import { getReplayStep, ReplayStepInput } from "@/lib/server/replays/replay-pages";

export const dynamic = "force-dynamic";

/** One branch step whole (a model call with its full input): `{ step }`. */
export const GET = route<{ id: string; seq: string }>(
  { accept: ["api_key"] },
  async ({ prisma, params, principal }) => {
    const ref = parseInput(ReplayStepInput, { replayId: params.id, seq: params.seq });
    return Response.json({ step: await getReplayStep(principal, ref, prisma) });
  },
);
