import { route } from "@/lib/http/route";
import { getSessionStep, SessionStepInput } from "@/lib/server/sessions/session-pages";
import { parseInput } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** One step whole (the stored event shape: seq, kind, name, input, output, error…), a model call with its full input: `{ event }`. */
export const GET = route<{ id: string; seq: string }>(
  { accept: ["api_key"] },
  async ({ prisma, params, principal }) => {
    const ref = parseInput(SessionStepInput, { sessionId: params.id, seq: params.seq });
    return Response.json({ event: await getSessionStep(principal, ref, prisma) });
  },
);
