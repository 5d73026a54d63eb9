import { apiRoute, readQuery } from "@/lib/http/api";
import { replayDocumentAnswer } from "@/lib/http/replay-answer";
import { ReplayDocumentQuery } from "@/lib/server/replays/replay-documents";

export const dynamic = "force-dynamic";

/**
 * One replay with its steps in order: `{ replay: { ..., steps, ... } }`.
 * `?inputs=delta`: each model call's input holds only the messages it adds,
 * and `inputPrefix: { seq, count }` says they follow the first `count`
 * messages of step `seq`'s full input.
 *
 * Streamed as GET /api/v1/sessions/:id is: the steps are read a window at a
 * time and written as they are read (see lib/http/stream.ts for a failure
 * after the first byte: a run that stores its steps meanwhile cuts the body).
 * The counterfactual (fork, verdicts, trial set) is read after the replay's stamp.
 */
export const GET = apiRoute<{ id: string }>(async ({ request, prisma, params, principal }) => {
  const { inputs } = readQuery(request, ReplayDocumentQuery);
  return replayDocumentAnswer(principal, prisma, params.id, { inputs, where: `GET /api/v1/replays/${params.id}` });
});
